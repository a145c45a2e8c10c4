import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createSignInThrottle } from '../../src/console/throttle.js';
import { createLogger } from '../../src/log.js';
import { ConsoleClient, PASSWORD, person, useConsoleApi } from './helpers.js';

/** Limits as an operator sets them: 3 per email, 6 per client address. */
const ctx = useConsoleApi({ CONSOLE_SIGN_IN_PER_EMAIL: '3', CONSOLE_SIGN_IN_PER_ADDRESS: '6' });

describe('sign-in throttling', () => {
  // Runs first: it needs the address's whole budget.
  it('limits attempts per client address across emails, with Retry-After', async () => {
    const client = new ConsoleClient(ctx.api);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await client.signIn(`someone${i}-${randomBytes(3).toString('hex')}@agency.example`, 'wrong password')).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    const throttled = await client.signIn(`other-${randomBytes(3).toString('hex')}@agency.example`, 'wrong password');
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ error: { code: 'rate_limited', message: 'Too many sign-in attempts. Try again later.' } });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(throttled.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    // Sign-in links from this address are throttled as well.
    expect((await client.call('POST', '/session/link', { body: { token: 'x' } })).status).toBe(429);
  });
});

describe('per email (own throttle, so the address limit above does not interfere)', () => {
  const throttle = () => createSignInThrottle({ redisUrl: undefined, signInAttemptsPerEmail: 3, signInAttemptsPerAddress: 1000 }, createLogger('silent'));

  it('blocks an email after its attempts, whatever the address, and an unknown email exactly alike', async () => {
    const t = throttle();
    for (const email of ['known@agency.example', 'unknown@agency.example']) {
      const waits = [];
      for (let i = 0; i < 4; i++) waits.push(await t.attempt({ email, address: `10.0.0.${i}` }));
      expect(waits.slice(0, 3)).toEqual([null, null, null]);
      expect(waits[3]).toBeGreaterThan(0);
    }
    // Case and surrounding spaces do not make another email.
    expect(await t.attempt({ email: ' KNOWN@agency.example ', address: '10.0.0.9' })).toBeGreaterThan(0);
    await t.close();
  });

  it('a successful sign-in clears the email', async () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) await t.attempt({ email: 'a@agency.example', address: '10.0.0.1' });
    await t.succeeded('a@agency.example');
    expect(await t.attempt({ email: 'a@agency.example', address: '10.0.0.1' })).toBeNull();
    await t.close();
  });
});

describe('per account through the API', () => {
  it('the answer for a throttled email is the same whether it exists or not, and the right password is refused too', async () => {
    // A fresh server: the address budget of the test above is spent.
    const { startTestApi } = await import('../support/api-server.js');
    const { CONSOLE_TEST_ENV } = await import('./helpers.js');
    const api = await startTestApi({ env: { ...CONSOLE_TEST_ENV, CONSOLE_SIGN_IN_PER_EMAIL: '3' } });
    try {
      const p = await person(api, api.db.sql, api.clock, 'target');
      const unknown = `ghost-${randomBytes(3).toString('hex')}@agency.example`;
      const answers: Record<string, number[]> = { [p.email]: [], [unknown]: [] };
      for (const email of [p.email, unknown]) {
        for (let i = 0; i < 4; i++) answers[email]!.push((await new ConsoleClient(api).signIn(email, 'wrong password')).status);
      }
      expect(answers[p.email]).toEqual([401, 401, 401, 429]);
      expect(answers[unknown]).toEqual([401, 401, 401, 429]);
      expect((await new ConsoleClient(api).signIn(p.email, PASSWORD)).status).toBe(429);
    } finally {
      await api.close();
    }
  });
});

describe.runIf(process.env.REDIS_URL)('shared through Redis', () => {
  it('two API processes (two throttles on one Redis) share one count', async () => {
    const config = { redisUrl: process.env.REDIS_URL, signInAttemptsPerEmail: 3, signInAttemptsPerAddress: 1000 };
    const first = createSignInThrottle(config, createLogger('silent'));
    const second = createSignInThrottle(config, createLogger('silent'));
    const email = `shared-${randomBytes(6).toString('hex')}@agency.example`;
    await Promise.all([first.ready(), second.ready()]);
    try {
      expect(await first.attempt({ email, address: '10.1.0.1' })).toBeNull();
      expect(await second.attempt({ email, address: '10.1.0.2' })).toBeNull();
      expect(await first.attempt({ email, address: '10.1.0.3' })).toBeNull();
      expect(await second.attempt({ email, address: '10.1.0.4' })).toBeGreaterThan(0);
    } finally {
      await first.succeeded(email);
      await first.close();
      await second.close();
    }
  });

  it('a Redis that does not answer falls back to the memory limit instead of hanging', async () => {
    // A port where nothing listens stands in for a down Redis; with no offline queue the call fails fast.
    const t = createSignInThrottle({ redisUrl: 'redis://127.0.0.1:1', signInAttemptsPerEmail: 2, signInAttemptsPerAddress: 1000 }, createLogger('silent'));
    try {
      const started = Date.now();
      const waits = [];
      for (let i = 0; i < 3; i++) waits.push(await t.attempt({ email: 'down@agency.example', address: '10.2.0.1' }));
      expect(waits.slice(0, 2)).toEqual([null, null]);
      expect(waits[2]).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await t.close();
    }
  });
});

describe('a Redis that accepts connections and never answers', () => {
  it('does not hold sign-in up: the memory limit applies within the command timeout', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const t = createSignInThrottle({ redisUrl: `redis://127.0.0.1:${port}`, signInAttemptsPerEmail: 1, signInAttemptsPerAddress: 1000 }, createLogger('silent'));
    try {
      const started = Date.now();
      expect(await t.attempt({ email: 'frozen@agency.example', address: '10.3.0.1' })).toBeNull();
      expect(await t.attempt({ email: 'frozen@agency.example', address: '10.3.0.1' })).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await t.close();
      silent.close();
    }
  });
});
