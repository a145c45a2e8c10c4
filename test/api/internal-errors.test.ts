import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

let api: TestApi;
let ws: WorkspaceFixture;
beforeAll(async () => {
  api = await startTestApi();
  ws = await workspaceWithKey(api.db.sql, api.clock);
});
afterAll(async () => api.close());

it('a database failure is 500 internal_error with no detail and the per-key rate headers', async () => {
  await api.db.sql`alter table offers rename to offers_gone`;
  try {
    const res = await get(api.baseUrl + '/offers', ws.key);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('ratelimit-limit')).toBe('120');
    expect(res.headers.get('ratelimit-remaining')).toBe(String(120 - 1));
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: 'Internal server error.' } });
    expect(text).not.toMatch(/offers|relation|sql|stack/i);
  } finally {
    await api.db.sql`alter table offers_gone rename to offers`;
  }
  expect((await get(api.baseUrl + '/offers', ws.key)).status).toBe(200);
});
