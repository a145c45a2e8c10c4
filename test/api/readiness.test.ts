import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/service/app.js';
import { PROBE_DEADLINE_MS } from '../../src/service/readiness.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { createLogger } from '../../src/log.js';
import { startWorker, type WorkerProgress } from '../../src/host/worker.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

interface Readiness {
  status: string;
  checks: {
    postgres: { status: string };
    redis: { status: string };
    worker: { status: string; last_claim_round_at?: string | null; stale_after_seconds?: number };
  };
}

async function readyz(origin: string): Promise<{ status: number; ms: number; body: Readiness; cache: string | null }> {
  const started = performance.now();
  const res = await fetch(origin + '/readyz');
  const body = (await res.json()) as Readiness;
  return { status: res.status, ms: performance.now() - started, body, cache: res.headers.get('cache-control') };
}

const STALE_SECONDS = 30;

describe('GET /readyz', () => {
  let db: TestDatabase;
  let worker: WorkerProgress | undefined;
  let api: TestApi;
  beforeAll(async () => {
    db = await freshDatabase();
    api = await startTestApi({ db, env: { READY_WORKER_STALE_SECONDS: String(STALE_SECONDS) }, worker: () => worker });
  });
  afterAll(async () => {
    await api.close();
    await db.drop();
  });

  it('is 200 with every check when PostgreSQL answers and no worker or Redis is configured', async () => {
    worker = undefined;
    const answer = await readyz(api.origin);
    expect(answer.status).toBe(200);
    expect(answer.cache).toBe('no-store');
    expect(answer.body).toEqual({
      status: 'ready',
      checks: { postgres: { status: 'ok' }, redis: { status: 'not_configured' }, worker: { status: 'not_running' } },
    });
  });

  it('reports a real worker of the process once it finished a claim round', async () => {
    const running = await startWorker({
      sql: db.sql,
      config: loadConfig({ OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64') }),
      clock: new ManualClock(),
      logger: createLogger('silent'),
    });
    try {
      worker = running;
      const deadline = Date.now() + 10_000;
      while (running.lastRoundAt() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const answer = await readyz(api.origin);
      expect(answer.status).toBe(200);
      expect(answer.body.checks.worker.status).toBe('ok');
      expect(Date.parse(answer.body.checks.worker.last_claim_round_at!)).toBeGreaterThan(Date.now() - 10_000);
      expect(answer.body.checks.worker.stale_after_seconds).toBe(STALE_SECONDS);
    } finally {
      worker = undefined;
      await running.stop();
    }
  });

  it('is 503 when the worker finished no claim round within READY_WORKER_STALE_SECONDS', async () => {
    const longAgo = Date.now() - (STALE_SECONDS + 1) * 1000;
    worker = { startedAt: longAgo - 1000, lastRoundAt: () => longAgo };
    const answer = await readyz(api.origin);
    expect(answer.status).toBe(503);
    expect(answer.body.status).toBe('not_ready');
    expect(answer.body.checks.worker.status).toBe('stale');
    expect(answer.body.checks.worker.last_claim_round_at).toBe(new Date(longAgo).toISOString());
  });

  it('is 503 when a worker started long ago never finished a round', async () => {
    worker = { startedAt: Date.now() - (STALE_SECONDS + 1) * 1000, lastRoundAt: () => undefined };
    const answer = await readyz(api.origin);
    expect(answer.status).toBe(503);
    expect(answer.body.checks.worker).toMatchObject({ status: 'stale', last_claim_round_at: null });
  });
});

describe('probes never wait past their deadline', () => {
  it('a PostgreSQL that does not answer (pool held) gives 503 from /readyz and /healthz within the deadline', async () => {
    const db = await freshDatabase();
    const sql = connect(db.url, { max: 1 });
    const { app, close } = await createApp({ sql, config: loadConfig({}), clock: new ManualClock(), logger: createLogger('silent') });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const held = await sql.reserve(); // the pool's only connection: every other query waits
    let released = false;
    try {
      const ready = await readyz(origin);
      expect(ready.status).toBe(503);
      expect(ready.body.status).toBe('not_ready');
      expect(ready.body.checks.postgres.status).toBe('timeout');
      expect(ready.ms).toBeLessThan(PROBE_DEADLINE_MS + 400);

      const started = performance.now();
      const health = await fetch(origin + '/healthz');
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: 'unavailable' });
      expect(performance.now() - started).toBeLessThan(PROBE_DEADLINE_MS + 400);

      // Once the connection is free again, the same process is ready again.
      held.release();
      released = true;
      expect((await readyz(origin)).status).toBe(200);
    } finally {
      if (!released) held.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
      await sql.end();
      await db.drop();
    }
  });
});
