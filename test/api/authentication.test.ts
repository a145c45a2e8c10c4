import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

const UNAUTHORIZED = { error: { code: 'unauthorized', message: 'Missing or invalid API key.' } };

let api: TestApi;
let ws: WorkspaceFixture;
beforeAll(async () => {
  api = await startTestApi();
  ws = await workspaceWithKey(api.db.sql, api.clock);
});
afterAll(async () => api.close());

async function expectUnauthorized(res: Response, rateHeaders: boolean) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  expect(await res.json()).toEqual(UNAUTHORIZED);
  expect(res.headers.get('ratelimit-limit') !== null).toBe(rateHeaders);
}

describe('openapi.yaml "Authentication": one identical 401', () => {
  const wellFormedUnknown = 'odk_live_' + 'A'.repeat(40);

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic b2RrOnNlY3JldA=='],
    ['Bearer without a key', 'Bearer '],
    ['a key without the odk_live_ prefix', 'Bearer sk_live_' + 'a'.repeat(40)],
    ['a key that is too short', 'Bearer odk_live_abc'],
    ['a key with characters outside base62', 'Bearer odk_live_' + 'a'.repeat(39) + '-'],
    ['a header longer than 256 characters', 'Bearer odk_live_' + 'a'.repeat(250)],
  ])('%s is 401 without rate headers (key not looked up)', async (_name, header) => {
    const res = await fetch(api.baseUrl + '/workspace', { headers: header === undefined ? {} : { authorization: header } });
    await expectUnauthorized(res, false);
  });

  it('a well-formed but unknown key is 401 with rate headers', async () => {
    await expectUnauthorized(await get(api.baseUrl + '/workspace', wellFormedUnknown), true);
  });

  it('a revoked key is refused on the very next request', async () => {
    const key = await createApiKey(api.db.sql, api.clock, { workspaceId: ws.workspaceId, name: 'temp', actingAccountId: ws.ownerId });
    expect((await get(api.baseUrl + '/workspace', key.key)).status).toBe(200);
    await revokeApiKey(api.db.sql, api.clock, { keyId: key.id, actingAccountId: ws.ownerId });
    await expectUnauthorized(await get(api.baseUrl + '/workspace', key.key), true);
  });

  it('a key past its expiry is refused, and works until then', async () => {
    const expiresAt = new Date(api.clock.now().getTime() + 60_000);
    const key = await createApiKey(api.db.sql, api.clock, { workspaceId: ws.workspaceId, name: 'short', expiresAt, actingAccountId: ws.ownerId });
    expect((await get(api.baseUrl + '/workspace', key.key)).status).toBe(200);
    api.clock.advance(60_000);
    await expectUnauthorized(await get(api.baseUrl + '/workspace', key.key), true);
  });

  it('accepts the scheme name case-insensitively', async () => {
    const res = await fetch(api.baseUrl + '/workspace', { headers: { authorization: `bearer ${ws.key}` } });
    expect(res.status).toBe(200);
  });

  it('a valid key reads its workspace', async () => {
    const res = await get(api.baseUrl + '/workspace', ws.key);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: { id: ws.workspaceId, name: expect.any(String), timezone: 'Europe/Berlin', currency: 'EUR' },
    });
  });

  it('keys are stored only as a hash', async () => {
    const rows = await api.db.sql`select * from api_keys where workspace_id = ${ws.workspaceId}::uuid`;
    const stored = JSON.stringify(rows.map((r) => ({ ...r, key_hash: Buffer.from(r.key_hash).toString('hex') })));
    expect(stored).not.toContain(ws.key);
    expect(stored).not.toContain(ws.key.slice(9, 30));
  });
});
