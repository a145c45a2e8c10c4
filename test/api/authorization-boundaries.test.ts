import { describe, expect, it } from 'vitest';
import { presentedKey } from '../../src/api/admission/authorization.js';

/**
 * The Authorization header's form, decided before any lookup (openapi.yaml, "Authentication": a
 * missing header, another scheme, a header longer than 256 characters and a key of the wrong form
 * all get the same 401). The numbers are the contract's, written out here rather than imported,
 * so a wrong constant fails too. The HTTP answer itself is test/api/authentication.test.ts's.
 */

const key = (randomLength: number) => 'odk_live_' + 'a'.repeat(randomLength);
/** "Bearer " plus a key is 7 + 9 + the random part: the longest key the form accepts (64) is 80. */
const header = (randomLength: number) => `Bearer ${key(randomLength)}`;

describe('the Authorization header\'s form (openapi.yaml "Authentication")', () => {
  it.each([
    ['the shortest key the form accepts (32 random characters)', 32],
    ['a key as the service makes them (40)', 40],
    ['the longest key the form accepts (64)', 64],
  ])('%s is presented', (_name, randomLength) => {
    expect(presentedKey(header(randomLength))).toBe(key(randomLength));
  });

  it.each([
    ['one below the shortest', 31],
    ['one above the longest', 65],
  ])('a key %s is refused by its form', (_name, randomLength) => {
    expect(presentedKey(header(randomLength))).toBeNull();
  });

  it.each([
    ['at the bound, 256 characters', 256],
    ['one above it, 257', 257],
  ])('a header %s is refused', (_name, length) => {
    const value = header(40).padEnd(length, 'a');
    expect(value).toHaveLength(length);
    expect(presentedKey(value)).toBeNull();
  });

  it('no header is refused', () => {
    expect(presentedKey(undefined)).toBeNull();
  });

  it.each([
    ['text before the scheme', `x${header(40)}`],
    ['another scheme in front of Bearer', `Basic ${header(40)}`],
    ['a space before the scheme', ` ${header(40)}`],
    ['text after the key', `${header(40)} extra`],
    ['a space after the key', `${header(40)} `],
    ['two spaces after the scheme', `Bearer  ${key(40)}`],
    ['a tab instead of the space', `Bearer\t${key(40)}`],
    ['the scheme alone', 'Bearer'],
    ['the scheme and its space alone', 'Bearer '],
    ['the key without a scheme', key(40)],
  ])('%s is refused: the header is exactly "Bearer <key>"', (_name, value) => {
    expect(presentedKey(value)).toBeNull();
  });

  it.each([['bearer'], ['BEARER'], ['BeArEr']])('the scheme is read case-insensitively: %s', (scheme) => {
    expect(presentedKey(`${scheme} ${key(40)}`)).toBe(key(40));
  });
});
