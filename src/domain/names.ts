import { invalidInput } from './errors.js';
import { requireText } from './validate.js';

/**
 * The one rule for names people give (account, workspace and API key names, the name chosen when
 * accepting an invitation), in the console and the CLI alike: one line of text. Control
 * characters (Unicode Cc: U+0000-U+001F, U+007F-U+009F) and the line and paragraph separators
 * (Zl U+2028, Zp U+2029) are refused, because a name is written into mails, where a line break
 * would let it forge lines of the plain-text part. console-api.yaml states the same rule as the
 * `pattern` of every name field (NAME_PATTERN, written with plain escapes so every JSON Schema
 * tool reads it).
 */
export const NAME_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029]*$';
const NAME = new RegExp(NAME_PATTERN, 'u');
const BREAKS = /[\s\u0000-\u001F\u007F-\u009F\u2028\u2029]+/gu;

export function requireName(value: unknown, field: string, max: number): string {
  const name = requireText(value, field, 1, max);
  if (!NAME.test(name)) throw invalidInput(`${field} must be one line, without line breaks, tabs or other control characters`);
  return name;
}

/**
 * A value as it goes into one line of a plain-text mail: every run of white space, control
 * characters and line or paragraph separators becomes one space. Names stored before the rule
 * above held them may still carry such characters.
 */
export function oneLine(value: string): string {
  return value.replace(BREAKS, ' ').trim();
}
