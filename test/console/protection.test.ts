import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsole } from '../../src/console/app.js';
import { CONTENT_SECURITY_POLICY } from '../../src/console/protection.js';
import { createLogger } from '../../src/log.js';
import { consoleWorld, type ConsoleWorld, useConsoleApi } from './helpers.js';

const ctx = useConsoleApi();
let world: ConsoleWorld;
beforeAll(async () => {
  world = await consoleWorld(ctx.api);
});

const keys = () => `/workspaces/${world.workspaceId}/api-keys`;

async function keyCount(): Promise<number> {
  const [row] = await ctx.api.db.sql<{ n: number }[]>`select count(*)::int as n from api_keys where workspace_id = ${world.workspaceId}::uuid`;
  return row!.n;
}

describe('cross-site refusal of state-changing requests', () => {
  it('accepts the console\'s own origin', async () => {
    const answer = await world.owner.client.call('POST', keys(), { body: { name: 'same origin' } });
    expect(answer.status).toBe(201);
  });

  it.each([
    ['an Origin of another site', { origin: 'https://evil.example' }],
    ['Origin "null"', { origin: 'null' }],
    ['the same host on another port', { origin: 'http://127.0.0.1:1' }],
  ])('refuses %s with 403 and changes nothing', async (_what, headers) => {
    const before = await keyCount();
    const answer = await world.owner.client.call('POST', keys(), { body: { name: 'forged' }, headers });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('forbidden');
    expect(await keyCount()).toBe(before);
  });

  it('without Origin, accepts Sec-Fetch-Site same-origin and refuses cross-site or none at all', async () => {
    const client = world.owner.client;
    const call = (secFetchSite?: string) =>
      fetch(`${ctx.api.origin}/console/api${keys()}`, {
        method: 'POST',
        headers: {
          cookie: client.cookie!,
          'content-type': 'application/json',
          ...(secFetchSite ? { 'sec-fetch-site': secFetchSite } : {}),
        },
        body: JSON.stringify({ name: 'no origin' }),
      });
    expect((await call('same-origin')).status).toBe(201);
    expect((await call('cross-site')).status).toBe(403);
    expect((await call('same-site')).status).toBe(403);
    expect((await call()).status).toBe(403);
  });

  it.each([
    ['a form body', 'application/x-www-form-urlencoded', 'name=forged'],
    ['a plain-text body', 'text/plain', '{"name":"forged"}'],
    ['a multipart body', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nforged\r\n--x--'],
  ])('refuses %s even from the own origin', async (_what, type, raw) => {
    const before = await keyCount();
    const answer = await world.owner.client.call('POST', keys(), { raw, headers: { 'content-type': type } });
    expect(answer.status).toBe(403);
    expect(await keyCount()).toBe(before);
  });

  it('checks sign-in too (no sign-in from another site)', async () => {
    const answer = await world.anonymous.call('POST', '/session', {
      body: { email: world.owner.email, password: 'whatever it is' },
      headers: { origin: 'https://evil.example' },
    });
    expect(answer.status).toBe(403);
  });

  it('answers malformed JSON and an oversized body with 400', async () => {
    const broken = await world.owner.client.call('POST', keys(), { raw: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_request');
    const huge = await world.owner.client.call('POST', keys(), { body: { name: 'x'.repeat(20_000) } });
    expect(huge.status).toBe(400);
  });

  it('names the field of an invalid body', async () => {
    const answer = await world.owner.client.call('POST', keys(), { body: { name: '' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', param: 'name' });
    const extra = await world.owner.client.call('POST', keys(), { body: { name: 'ok', admin: true } });
    expect(extra.body.error).toMatchObject({ code: 'invalid_request', param: 'admin' });
  });
});

describe('security headers on every /console answer', () => {
  const expectHeaders = (headers: Headers) => {
    expect(headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('referrer-policy')).toBe('same-origin');
  };

  it.each([
    ['an API answer', '/console/api/me'],
    ['a 401', '/console/api/me'],
    ['an unknown API path', '/console/api/nothing-here'],
    ['the document', '/console/api/openapi.json'],
    ['the app', '/console/'],
    ['a client-side route', '/console/workspaces/x/endpoints'],
  ])('%s', async (what, path) => {
    const headers: Record<string, string> = what === 'a 401' ? {} : { cookie: world.owner.client.cookie! };
    const answer = await fetch(`${ctx.api.origin}${path}`, { headers });
    expectHeaders(answer.headers);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('not on the public API (its headers are those of openapi.yaml)', async () => {
    const answer = await fetch(`${ctx.api.origin}/api/v1/workspace`);
    expect(answer.headers.get('content-security-policy')).toBeNull();
  });
});

describe('the single-page app', () => {
  let server: Server;
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Console</title><script type="module" src="/console/assets/app-1234.js"></script>');
    writeFileSync(join(dir, 'assets', 'app-1234.js'), 'export {};');
    const consoleApp = await createConsole({ sql: ctx.api.db.sql, config: ctx.api.config, clock: ctx.api.clock, logger: createLogger('silent'), staticDir: dir });
    const app = express();
    app.use('/console', consoleApp.router);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = consoleApp.close;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await close();
  });

  it('answers index.html for client-side routes, uncached', async () => {
    const answer = await fetch(`${origin}/console/workspaces/abc/delivery-log`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('<title>Console</title>');
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('serves hashed assets cacheable for good, and a missing asset is 404', async () => {
    const asset = await fetch(`${origin}/console/assets/app-1234.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${origin}/console/assets/missing-0000.js`)).status).toBe(404);
  });

  it('says how to build the console when it is not built', async () => {
    const consoleApp = await createConsole({
      sql: ctx.api.db.sql,
      config: ctx.api.config,
      clock: ctx.api.clock,
      logger: createLogger('silent'),
      staticDir: join(tmpdir(), 'no-such-console-build'),
    });
    const app = express().use('/console', consoleApp.router);
    const bare = createServer(app);
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/console/`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('npm run build');
    } finally {
      bare.closeAllConnections();
      await new Promise<void>((resolve) => bare.close(() => resolve()));
      await consoleApp.close();
    }
  });
});
