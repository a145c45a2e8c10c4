import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

// openapi.yaml "Methods": "A path that does not exist returns 404 `not_found` for every method, without
// a key." Paths match exactly, letter case included: another spelling is another (unknown) path.

let api: TestApi;
let ws: WorkspaceFixture;
beforeAll(async () => {
  api = await startTestApi();
  ws = await workspaceWithKey(api.db.sql, api.clock);
});
afterAll(async () => api.close());

const notFound = { error: { code: 'not_found', message: 'Resource not found.' } };

describe('exact, case-sensitive paths', () => {
  it('the exact base path answers', async () => {
    expect((await get(api.origin + '/api/v1/workspace', ws.key)).status).toBe(200);
  });

  it.each(['/API/V1/workspace', '/Api/v1/workspace', '/api/V1/workspace', '/api/v1/Workspace', '/api/v1/OFFERS', '/api/v1/openapi.JSON'])(
    '%s is a path that does not exist (404 for GET and POST, no key needed)',
    async (spelling) => {
      const read = await get(api.origin + spelling, ws.key);
      expect(read.status).toBe(404);
      expect(await read.json()).toEqual(notFound);
      expect(read.headers.get('ratelimit-limit')).toBeNull();
      const write = await fetch(api.origin + spelling, { method: 'POST' });
      expect(write.status).toBe(404);
    },
  );

  it('/HEALTHZ and /READYZ are not the probes', async () => {
    expect((await fetch(api.origin + '/HEALTHZ')).status).toBe(404);
    expect((await fetch(api.origin + '/READYZ')).status).toBe(404);
  });
});
