import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';
import { randomInt } from '../support/random.js';

/**
 * openapi.yaml "Order of checks": 1 per-IP limit, 2 query
 * length, 3 key presence/form, 4 per-key limit, 5 parameters, 6 key existence, 7 resource.
 * Each case breaks two checks at once and expects the earlier one to answer.
 */
let api: TestApi;
let ws: WorkspaceFixture;
const unknownKey = () => 'odk_live_' + randomBytes(30).toString('hex').slice(0, 40);
const longQuery = '?pad=' + 'x'.repeat(1020); // 1025 characters with the '?'
const freshIp = () => `198.51.100.${randomInt(1, 250)}`;

beforeAll(async () => {
  api = await startTestApi({ env: { TRUST_PROXY: 'true', RATE_LIMIT_PER_IP: '4', RATE_LIMIT_PER_KEY: '3' } });
  ws = await workspaceWithKey(api.db.sql, api.clock);
});
afterAll(async () => api.close());

function call(pathAndQuery: string, options: { key?: string; ip?: string } = {}) {
  const headers: Record<string, string> = { 'x-forwarded-for': options.ip ?? freshIp() };
  return get(api.baseUrl + pathAndQuery, options.key, { headers });
}

async function exhaust(times: number, pathAndQuery: string, options: { key?: string; ip?: string }) {
  for (let i = 0; i < times; i++) await call(pathAndQuery, options);
}

describe('order of checks (openapi.yaml "Order of checks")', () => {
  it('1 before 2: an exhausted IP gets 429 even for an overlong query, without RateLimit headers', async () => {
    const ip = '203.0.113.7';
    await exhaust(4, '/workspace', { ip });
    const res = await call('/offers' + longQuery, { ip });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    expect(await res.json()).toEqual({ error: { code: 'rate_limited', message: 'Too many requests.' } });
  });

  it('2 before 3: an overlong query without a key is 400 without param and without RateLimit headers', async () => {
    const res = await call('/offers' + longQuery);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'invalid_request', message: 'Query string too long.' } });
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });

  it('a query of exactly 1024 characters including ? passes the length check', async () => {
    const res = await call('/offers?pad=' + 'x'.repeat(1019), { key: ws.key });
    expect(res.status).toBe(200);
  });

  it('3 before 5: a missing key with a bad parameter is 401, not 400', async () => {
    const res = await call('/offers?limit=abc');
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });

  it('4 before 5: an exhausted key with a bad parameter is 429 with RateLimit-Remaining 0', async () => {
    const key = unknownKey();
    await exhaust(3, '/offers', { key });
    const res = await call('/offers?limit=abc', { key });
    expect(res.status).toBe(429);
    expect(res.headers.get('ratelimit-limit')).toBe('3');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(res.headers.get('retry-after')).toBe(res.headers.get('ratelimit-reset'));
  });

  it('5 before 6: a bad parameter with an unknown key is 400 with param, saying nothing about the key', async () => {
    const withUnknown = await call('/offers?limit=abc', { key: unknownKey() });
    const withValid = await call('/offers?limit=abc', { key: ws.key });
    expect(withUnknown.status).toBe(400);
    expect(await withUnknown.json()).toEqual(await withValid.json());
    expect(withUnknown.headers.get('ratelimit-limit')).toBe('3');
  });

  it('6 before 7: an ID of the wrong form is 401 with an unknown key and 404 with a valid one', async () => {
    const unknown = await call('/offers/not-a-uuid', { key: unknownKey() });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('ratelimit-limit')).toBe('3');
    const valid = await call('/offers/not-a-uuid', { key: ws.key });
    expect(valid.status).toBe(404);
    expect(valid.headers.get('ratelimit-limit')).toBe('3');
  });

  it('requests ending in 400, 401 and 404 after the key-form check count against the key', async () => {
    const key = unknownKey();
    const remaining = async (path: string) => (await call(path, { key })).headers.get('ratelimit-remaining');
    expect(await remaining('/offers?limit=abc')).toBe('2');
    expect(await remaining('/offers')).toBe('1');
    expect(await remaining('/offers/nope')).toBe('0');
  });

  it('requests stopped before the key-form check do not count against the key', async () => {
    const key = ws.key.slice(0, -1) + (ws.key.endsWith('A') ? 'B' : 'A');
    await call('/offers' + longQuery, { key });
    const res = await call('/workspace', { key });
    expect(res.headers.get('ratelimit-remaining')).toBe('2');
  });
});
