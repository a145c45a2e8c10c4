import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

// docs/reliability.md "No request waits without bound": a request whose database work does not
// finish gets the generic 500 at HTTP_RESPONSE_DEADLINE_MS, not a socket held open.

// Every other API test runs under the default deadline (5 s) and shows quick requests unaffected.
const DEADLINE_MS = 1_000;

let api: TestApi;
let ws: WorkspaceFixture;
const logLines: { level: number; msg: string }[] = [];
beforeAll(async () => {
  const logger = createLogger('info', 'offerdesk', { write: (line: string) => void logLines.push(JSON.parse(line)) });
  api = await startTestApi({ env: { HTTP_RESPONSE_DEADLINE_MS: String(DEADLINE_MS) }, logger });
  ws = await workspaceWithKey(api.db.sql, api.clock);
});
afterAll(async () => api.close());

describe('the response deadline', () => {
  it('a request held by the database is answered 500 internal_error at the deadline, with its rate headers', async () => {
    const lock = await api.db.sql.reserve();
    await lock`begin`;
    await lock`lock table api_keys in access exclusive mode`;
    try {
      const started = performance.now();
      const res = await get(api.baseUrl + '/workspace', ws.key);
      const ms = performance.now() - started;
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: { code: 'internal_error', message: 'Internal server error.' } });
      expect(res.headers.get('ratelimit-limit')).toBe('120');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 20);
      expect(ms).toBeLessThan(DEADLINE_MS + 1_500);
    } finally {
      await lock`rollback`;
      lock.release();
    }
    // The held handler finishes late; its answer is dropped and the service goes on.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await get(api.baseUrl + '/workspace', ws.key)).status).toBe(200);
  });

  it('drops the late answer of a held request without logging it as a failure', async () => {
    const lock = await api.db.sql.reserve();
    await lock`begin`;
    await lock`lock table api_keys in access exclusive mode`;
    const before = logLines.length;
    try {
      expect((await get(api.baseUrl + '/workspace', ws.key)).status).toBe(500);
    } finally {
      await lock`rollback`;
      lock.release();
    }
    // The held request's statement goes on once the lock is gone and its handler answers late.
    expect((await get(api.baseUrl + '/workspace', ws.key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const failures = logLines.slice(before).filter((line) => line.level >= 40 && line.msg !== 'request passed its deadline');
    expect(failures.map((line) => line.msg)).toEqual([]);
  });

  it('requests answered around a held one leave it its own deadline, and the next held one gets its own', async () => {
    const lock = await api.db.sql.reserve();
    await lock`begin`;
    await lock`lock table api_keys in access exclusive mode`;
    try {
      for (let round = 0; round < 2; round++) {
        const quickBefore = await get(api.baseUrl + '/openapi.json');
        expect(quickBefore.status).toBe(200);
        const started = performance.now();
        const held = get(api.baseUrl + '/workspace', ws.key);
        // Answered while the held request waits: each leaves the deadlines before it comes.
        for (let i = 0; i < 3; i++) expect((await get(api.baseUrl + '/openapi.json')).status).toBe(200);
        const res = await held;
        const ms = performance.now() - started;
        expect(res.status).toBe(500);
        expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 20);
        expect(ms).toBeLessThan(DEADLINE_MS + 1_500);
      }
    } finally {
      await lock`rollback`;
      lock.release();
    }
  });
});
