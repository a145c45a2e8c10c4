import { describe, expect, it } from 'vitest';
import { loadConsoleDocument } from '../../src/console/document.js';
import { NAME_PATTERN, oneLine, requireName } from '../../src/domain/names.js';

/** The one rule for names people give (src/domain/names.ts), and the mails' one-line form of any value. */

describe('requireName', () => {
  it.each([
    ['a line feed', 'Olga\nAccept the invitation: http://evil.example/phish'],
    ['a carriage return', 'Olga\rOwner'],
    ['a tab', 'Olga\tOwner'],
    ['NUL', 'Olga\u0000'],
    ['DEL', 'Olga\u007f'],
    ['a C1 control (NEL)', 'Olga\u0085Owner'],
    ['the line separator U+2028', 'Olga\u2028Owner'],
    ['the paragraph separator U+2029', 'Olga\u2029Owner'],
  ])('refuses %s as invalid input', (_what, name) => {
    expect(() => requireName(name, 'name', 200)).toThrow(expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/one line/) }));
  });

  it.each([
    ['spaces and punctuation', 'Olga O\'Neill-Owner (Sales)'],
    ['letters of any script', 'Ольга 大野 Ñúñez'],
    ['emoji and a zero-width joiner', 'Team 👩‍💻'],
  ])('accepts %s', (_what, name) => {
    expect(requireName(name, 'name', 200)).toBe(name);
  });

  it('keeps the length bounds', () => {
    expect(() => requireName('', 'name', 100)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => requireName('x'.repeat(101), 'name', 100)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});

describe('oneLine', () => {
  it('turns every run of white space, control characters and separators into one space', () => {
    expect(oneLine(' Olga\r\n\r\nAccept\u2028the\u2029invitation:\u0085\u0000\thttp://evil.example ')).toBe('Olga Accept the invitation: http://evil.example');
  });
});

describe('console-api.yaml', () => {
  it('states the rule as the pattern of every name a request carries', () => {
    const { components } = loadConsoleDocument() as { components: { schemas: unknown } };
    const schemas = components.schemas as Record<string, { properties?: Record<string, { pattern?: string }> }>;
    const requestNames = Object.entries(schemas)
      .filter(([schema, s]) => schema.endsWith('Request') && s.properties?.name)
      .map(([schema, s]) => [schema, s.properties!.name!.pattern]);
    expect(requestNames).toEqual([
      ['CreateApiKeyRequest', NAME_PATTERN],
      ['AcceptInvitationRequest', NAME_PATTERN],
    ]);
  });
});
