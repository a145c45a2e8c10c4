import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkAgainstContract, consoleWorld, type ConsoleWorld, useConsoleApi } from './helpers.js';
import { linkOf, mailsTo } from './mail-support.js';
import { startTestApi } from '../support/api-server.js';
import { CONSOLE_TEST_ENV } from './helpers.js';

/**
 * A DNS-rebinding page (docs/console.md "Sessions"): a site whose name first resolves to itself
 * and then to 127.0.0.1 talks to a development instance under its own host name, in `Host` and
 * in `Origin`. The server here is the embedded default (no DATABASE_URL, the default HOST and
 * public URL), where the development mailbox is served; requests are sent over a real socket
 * straight to the server (not through the Prism front, which rewrites `Host`) with the headers
 * such a page's browser sends.
 */

const ctx = useConsoleApi();
let world: ConsoleWorld;
let port: string;
beforeAll(async () => {
  world = await consoleWorld(ctx.api);
  port = new URL(ctx.api.serverOrigin).port;
});

interface Answer {
  status: number;
  body: any;
  text: string;
}

/** One request with the given Host and Origin (fetch cannot set Host); checked against console-api.yaml. */
function send(method: string, path: string, headers: Record<string, string>, body?: unknown, base = ctx.api.serverOrigin): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/console/api${path}`,
      { method, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          const parsed = text ? JSON.parse(text) : null;
          checkAgainstContract(method, `/console/api${path}`, res.statusCode!, parsed);
          resolve({ status: res.statusCode!, body: parsed, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const rebound = () => ({ host: `rebind.evil.example:${port}`, origin: `http://rebind.evil.example:${port}` });

describe('a DNS-rebinding page on a development instance', () => {
  it('cannot ask for a sign-in link: its Origin is its own host, which is not the console\'s', async () => {
    const answer = await send('POST', '/session/link-request', rebound(), { email: world.owner.email });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('forbidden');
    expect(await mailsTo(ctx.api.db.sql, world.owner.email)).toEqual([]);
  });

  it('cannot read the mailbox: 404 under its host name, and the config says no mailbox', async () => {
    const asked = await send('POST', '/session/link-request', { host: `localhost:${port}`, origin: `http://localhost:${port}` }, { email: world.admin.email });
    expect(asked.status).toBe(202);
    const [mail] = await mailsTo(ctx.api.db.sql, world.admin.email);
    const { token } = linkOf(mail!);
    const list = await send('GET', '/mailbox', { host: rebound().host });
    expect(list.status).toBe(404);
    expect(list.text).not.toContain(token);
    const [row] = await ctx.api.db.sql<{ id: string }[]>`select id from mail_outbox where lower(recipient) = lower(${world.admin.email})`;
    const one = await send('GET', `/mailbox/${row!.id}`, { host: rebound().host });
    expect(one.status).toBe(404);
    expect(one.text).not.toContain(token);
    expect((await send('GET', '/config', { host: rebound().host })).body.data.mail).toEqual({ mode: 'local', mailbox: false });
  });

  it('cannot exchange a link for a session', async () => {
    const asked = await send('POST', '/session/link-request', { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` }, { email: world.member.email });
    expect(asked.status).toBe(202);
    const { token } = linkOf((await mailsTo(ctx.api.db.sql, world.member.email))[0]!);
    const exchanged = await send('POST', '/session/link', rebound(), { token });
    expect(exchanged.status).toBe(403);
    expect((await send('POST', '/session/link', { host: `localhost:${port}`, origin: `http://localhost:${port}` }, { token })).status).toBe(200);
  });
});

describe('the development mailbox and origins on this machine', () => {
  it.each(['localhost', '127.0.0.1', '[::1]'])('the mailbox answers a request addressed to %s', async (name) => {
    const list = await send('GET', '/mailbox', { host: `${name}:${port}` });
    expect(list.status).toBe(200);
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('a change from http://%s on the server\'s port is the console\'s own', async (name) => {
    const answer = await send('POST', '/session/link-request', { host: `127.0.0.1:${port}`, origin: `http://${name}:${port}` }, { email: 'nobody@agency.example' });
    expect(answer.status).toBe(202);
  });

  it.each([
    ['a loopback name on another port', (p: string) => `http://localhost:${Number(p) + 1}`],
    ['https on the server\'s port', (p: string) => `https://localhost:${p}`],
    ['a name under localhost\'s', (p: string) => `http://localhost.evil.example:${p}`],
  ])('refuses %s', async (_what, origin) => {
    const answer = await send('POST', '/session/link-request', { host: `127.0.0.1:${port}`, origin: origin(port) }, { email: 'nobody@agency.example' });
    expect(answer.status).toBe(403);
  });
});

describe('with OFFERDESK_PUBLIC_URL set elsewhere', () => {
  it('takes changes from its origin only: neither the Host the request names nor a loopback name', async () => {
    const publicUrl = 'https://console.agency.example';
    const api = await startTestApi({ env: { ...CONSOLE_TEST_ENV, OFFERDESK_PUBLIC_URL: publicUrl } });
    try {
      const own = new URL(api.serverOrigin);
      const ask = (headers: Record<string, string>) => send('POST', '/session/link-request', headers, { email: 'nobody@agency.example' }, api.serverOrigin);
      expect((await ask({ host: own.host, origin: api.serverOrigin })).status).toBe(403);
      expect((await ask({ host: `localhost:${own.port}`, origin: `http://localhost:${own.port}` })).status).toBe(403);
      expect((await ask({ host: 'console.agency.example', origin: publicUrl })).status).toBe(202);
      // The mailbox answers at the public URL's host as at a loopback name.
      expect((await send('GET', '/mailbox', { host: 'console.agency.example' }, undefined, api.serverOrigin)).status).toBe(200);
      expect((await send('GET', '/mailbox', { host: 'rebind.evil.example' }, undefined, api.serverOrigin)).status).toBe(404);
    } finally {
      await api.close();
    }
  });
});
