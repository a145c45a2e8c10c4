import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { connect as connectTcp } from 'node:net';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

// A different address for every call: two tests drawing the same address shared one window.
let addresses = 0;
const randomIp = () => `192.0.2.${1 + (addresses++ % 254)}`;
const randomKey = () => 'odk_live_' + randomBytes(30).toString('base64url').replace(/[-_]/g, 'a').slice(0, 40);

describe('openapi.yaml "Limits" with the default numbers', () => {
  let api: TestApi;
  let ws: WorkspaceFixture;
  beforeAll(async () => {
    api = await startTestApi({ env: { TRUST_PROXY: 'true' } });
    ws = await workspaceWithKey(api.db.sql, api.clock);
  });
  afterAll(async () => api.close());

  it('allows 120 requests per key per minute and refuses the 121st', async () => {
    const ip = randomIp();
    const send = () => get(api.baseUrl + '/workspace', ws.key, { headers: { 'x-forwarded-for': ip } });
    for (let i = 1; i <= 120; i++) {
      const res = await send();
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(120 - i));
    }
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-limit')).toBe('120');
  });

  it('allows 300 requests per IP per minute across keys, including keyless ones, and refuses the 301st', async () => {
    const ip = randomIp();
    for (let i = 1; i <= 300; i++) {
      const key = i % 3 === 0 ? undefined : randomKey();
      const res = await get(api.baseUrl + '/offers', key, { headers: { 'x-forwarded-for': ip } });
      expect(res.status).toBe(401);
    }
    const refused = await get(api.baseUrl + '/offers', ws.key, { headers: { 'x-forwarded-for': ip } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-limit')).toBeNull();
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });
});

describe('fixed windows, counted per address', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ env: { TRUST_PROXY: 'true', RATE_LIMIT_PER_IP: '2', RATE_LIMIT_PER_KEY: '2' } });
  });
  afterAll(async () => api.close());
  afterEach(() => vi.useRealTimers());

  const from = (ip: string, key?: string) => get(api.baseUrl + '/offers', key, { headers: { 'x-forwarded-for': ip } });

  it('a window lasts 60 seconds from its first request, then a new one starts', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-01T12:00:00Z') });
    const key = randomKey();
    const first = await from(randomIp(), key);
    expect(first.headers.get('ratelimit-reset')).toBe('60');
    vi.setSystemTime(new Date('2026-03-01T12:00:45Z'));
    const second = await from(randomIp(), key);
    expect(second.headers.get('ratelimit-reset')).toBe('15');
    const third = await from(randomIp(), key);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('15');
    vi.setSystemTime(new Date('2026-03-01T12:01:00.001Z'));
    const next = await from(randomIp(), key);
    expect(next.status).toBe(401);
    expect(next.headers.get('ratelimit-remaining')).toBe('1');
    expect(next.headers.get('ratelimit-reset')).toBe('60');
  });

  it('IPv6 clients share one limit per /64 network', async () => {
    expect((await from('2001:db8:aa:1::1')).status).toBe(401);
    expect((await from('2001:db8:aa:1:ffff:ffff:ffff:fffe')).status).toBe(401);
    expect((await from('2001:db8:aa:1::9')).status).toBe(429);
    expect((await from('2001:db8:aa:2::1')).status).toBe(401);
  });

  it('IPv4 clients are limited per single address', async () => {
    expect((await from('198.51.100.10')).status).toBe(401);
    expect((await from('198.51.100.10')).status).toBe(401);
    expect((await from('198.51.100.10')).status).toBe(429);
    expect((await from('198.51.100.11')).status).toBe(401);
  });

  it('OPTIONS, 405 and unknown paths are not counted', async () => {
    const ip = randomIp();
    for (let i = 0; i < 5; i++) {
      await fetch(api.baseUrl + '/offers', { method: 'OPTIONS', headers: { 'x-forwarded-for': ip } });
      await fetch(api.baseUrl + '/offers', { method: 'POST', headers: { 'x-forwarded-for': ip } });
      await fetch(api.baseUrl + '/nowhere', { headers: { 'x-forwarded-for': ip } });
    }
    expect((await from(ip)).status).toBe(401);
  });
});

/**
 * The Redis store runs whenever a Redis is there: REDIS_URL when set (CI sets it; an unreachable
 * one fails the test), else a local Redis on the default port. Only a machine with neither skips
 * it, and says so, so that `npm test` still works on a fresh machine without Redis.
 */
const localRedisAnswers = await new Promise<boolean>((resolve) => {
  const socket = connectTcp({ host: '127.0.0.1', port: 6379 });
  const settle = (answers: boolean) => {
    socket.destroy();
    resolve(answers);
  };
  socket.setTimeout(500);
  socket.once('connect', () => settle(true));
  socket.once('error', () => settle(false));
  socket.once('timeout', () => settle(false));
});
const redisUrl = process.env.REDIS_URL || (localRedisAnswers ? 'redis://127.0.0.1:6379' : undefined);
if (!redisUrl) console.warn('rate-limits.test: no REDIS_URL and no Redis on 127.0.0.1:6379; the shared-Redis test is skipped');

describe.skipIf(!redisUrl)('limits shared through Redis across API processes', () => {
  let db: TestDatabase;
  let one: TestApi;
  let two: TestApi;
  beforeAll(async () => {
    db = await freshDatabase();
    const env = { REDIS_URL: redisUrl!, TRUST_PROXY: 'true', RATE_LIMIT_PER_KEY: '4' };
    one = await startTestApi({ db, env });
    two = await startTestApi({ db, env });
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await db.drop();
  });

  it('two API processes enforce one per-key limit', async () => {
    const ws = await workspaceWithKey(db.sql, one.clock);
    const statuses: number[] = [];
    for (const api of [one, two, one, two, one]) {
      statuses.push((await get(api.baseUrl + '/workspace', ws.key, { headers: { 'x-forwarded-for': randomIp() } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});
