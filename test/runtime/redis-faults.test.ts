import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createRateLimits } from '../../src/api/admission/rate-limits.js';
import { loadConfig } from '../../src/config.js';
import { freePort, redisServerAvailable, startRedisProcess, type RedisProcess } from '../support/faults/redis-process.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';
import { untilValue } from '../support/until.js';

/** docs/reliability.md "A frozen or lost Redis never holds a request": the bound every answer must keep while Redis is frozen. */
const ANSWER_BOUND_MS = 1_000;
const PER_KEY = 30;

if (!redisServerAvailable()) console.warn('redis-faults.test: no redis-server binary; these tests are skipped');

async function timed(run: () => Promise<Response>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await run();
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

const until = <T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string) => untilValue(probe, timeoutMs, what, 50);

describe.skipIf(!redisServerAvailable())('a Redis of its own, frozen with SIGSTOP under load', () => {
  let redis: RedisProcess;
  let api: TestApi;
  let observer: Redis;
  const keys: WorkspaceFixture[] = [];
  beforeAll(async () => {
    redis = await startRedisProcess();
    observer = new Redis(redis.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    await observer.connect();
    api = await startTestApi({ env: { REDIS_URL: redis.url, TRUST_PROXY: 'true', RATE_LIMIT_PER_KEY: String(PER_KEY), RATE_LIMIT_PER_IP: '100000' } });
    for (let i = 0; i < 6; i++) keys.push(await workspaceWithKey(api.db.sql, api.clock));
  });
  afterAll(async () => {
    redis?.thaw(); // a failed assertion must not leave it frozen under api.close()
    observer?.disconnect();
    await api?.close();
    await redis?.stop();
  });

  const limiterKeys = async () => (await observer.keys('offerdesk:rl:key:*')).length;
  const readiness = async () => {
    const res = await fetch(api.origin + '/readyz');
    return { status: res.status, body: (await res.json()) as { status: string; checks: { redis: { status: string } } } };
  };

  it('answers every request within 1 s, enforces the limits in memory, and uses Redis again after SIGCONT', async () => {
    // Redis holds the counters while it answers.
    const before = await limiterKeys();
    expect((await get(api.baseUrl + '/workspace', keys[0]!.key)).status).toBe(200);
    expect(await limiterKeys()).toBe(before + 1);
    expect((await readiness()).body.checks.redis.status).toBe('ok');

    redis.freeze();
    const answers: Array<{ status: number; ms: number }> = [];
    const loadUntil = Date.now() + 2_000;
    const load = async (worker: number) => {
      for (let i = 0; Date.now() < loadUntil; i++) {
        const key = keys[1 + ((worker + i) % 4)]!.key;
        const path = i % 2 === 0 ? '/workspace' : '/offers?limit=5';
        answers.push(await timed(() => get(api.baseUrl + path, key, { headers: { 'x-forwarded-for': `192.0.2.${worker + 1}` } })));
      }
    };
    // One key that no request used before the freeze: its window lives in memory only.
    const enforced = async () => {
      const statuses: number[] = [];
      for (let i = 0; i <= PER_KEY; i++) {
        const answer = await timed(() => get(api.baseUrl + '/workspace', keys[5]!.key));
        answers.push(answer);
        statuses.push(answer.status);
      }
      return statuses;
    };
    const frozenReadiness = async () => {
      const started = performance.now();
      const result = await readiness();
      return { ...result, ms: performance.now() - started };
    };
    const [statuses, ready] = await Promise.all([enforced(), frozenReadiness(), ...[0, 1, 2, 3].map(load)]);

    expect(answers.length).toBeGreaterThan(50);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(ANSWER_BOUND_MS);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set(answers.some((a) => a.status === 429) ? [200, 429] : [200]));
    expect(statuses.slice(0, PER_KEY).every((s) => s === 200)).toBe(true);
    expect(statuses[PER_KEY]).toBe(429);
    expect(ready.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('degraded');
    expect(ready.body.checks.redis.status).not.toBe('ok');

    redis.thaw();
    await until(async () => ((await readiness()).body.checks.redis.status === 'ok' ? true : undefined), 10_000, 'Redis to be ready again');
    const afterThaw = await limiterKeys();
    const fresh = await workspaceWithKey(api.db.sql, api.clock);
    expect((await get(api.baseUrl + '/workspace', fresh.key)).status).toBe(200);
    expect(await limiterKeys()).toBe(afterThaw + 1);
  });
});

describe('Redis errors in the log', () => {
  it('an unreachable Redis is logged once per outage, not once per limiter and attempt', async () => {
    const lines: Array<{ msg: string; err?: { message: string } }> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const port = await freePort(); // nothing listens there
    const config = loadConfig({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_RECONNECT_MAX_DELAY_MS: '50' });
    const limits = createRateLimits(config, pino({ level: 'warn' }, sink));
    try {
      // Several reconnect attempts fail meanwhile; each limiter decides in memory.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await limits.consumeIp('203.0.113.9')).allowed).toBe(true);
      expect((await limits.consumeKey('k')).allowed).toBe(true);
      expect(await limits.probeStore()).toBe('unavailable');
    } finally {
      await limits.close();
    }
    const redisLines = lines.filter((line) => line.msg.includes('Redis'));
    expect(redisLines).toHaveLength(1);
    expect(redisLines[0]!.err?.message).toMatch(/ECONNREFUSED/);
  });
});
