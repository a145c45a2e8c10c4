import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentedKey } from '../../src/api/admission/authorization.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { workspaceWithKey } from '../support/fixtures.js';

/**
 * The Authorization header's form, decided before any lookup (openapi.yaml, "Authentication": a
 * missing header, another scheme, a header longer than 256 characters and a key of the wrong form
 * all get the same 401). The numbers are the contract's, written out here rather than imported,
 * so a wrong constant fails too. test/api/authentication.test.ts has the 401 for each kind of
 * header; the last table here is the bounds over HTTP.
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

describe('the bounds over HTTP: a key of the accepted form is looked up, anything longer is not', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
    await workspaceWithKey(api.db.sql, api.clock);
  });
  afterAll(async () => api.close());

  /** 401 either way; the rate headers tell whether the key was looked up (counted toward its limit). */
  async function answer(authorization: string) {
    const res = await fetch(api.baseUrl + '/workspace', { headers: { authorization } });
    await res.arrayBuffer();
    return { status: res.status, lookedUp: res.headers.get('ratelimit-limit') !== null };
  }

  it('an unknown key of the longest accepted form (an 80-character header) is looked up', async () => {
    expect(await answer(header(64))).toEqual({ status: 401, lookedUp: true });
  });

  it.each([256, 257])('a header of %i characters is refused without a lookup', async (length) => {
    expect(await answer(header(40).padEnd(length, 'a'))).toEqual({ status: 401, lookedUp: false });
  });
});
