import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { exitOf, outputOf, spawnOfferdesk, tempDir } from '../runtime/helpers.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';


/**
 * `offerdesk listen` end to end, every part real and in its own process where it is one in use:
 * `offerdesk serve` (API and worker) on a socket, `offerdesk listen` with its HTTPS receiver and
 * local CA, an offer action committed to the database, the verified line, the forward to a local
 * http server, and the endpoint gone after Ctrl-C. No variable names a mapping or a CA.
 */

const START_TIMEOUT_MS = 90_000;

interface Forwarded {
  headers: IncomingMessage['headers'];
  body: string;
}

let db: TestDatabase;
const data = tempDir('listen');
let serve: ChildProcess;
let target: Server;
const forwarded: Forwarded[] = [];
const children: ChildProcess[] = [];
let firstSecret = '';
const MASTER_KEY = randomBytes(32).toString('base64');

function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of ['PORT', 'HOST', 'OFFERDESK_WEBHOOK_DEV_RESOLVE', 'NODE_EXTRA_CA_CERTS', 'NODE_ENV']) delete base[name];
  // With DATABASE_URL set, no master key is generated: every process of the run shares this one.
  return { ...base, DATABASE_URL: db.url, OFFERDESK_MASTER_KEY: MASTER_KEY, OFFERDESK_DATA_DIR: data.path, OFFERDESK_DEV_LISTEN: '1', OFFERDESK_DEMO_SEED: '1', LOG_LEVEL: 'warn', ...extra };
}

function start(args: string[], extra: Record<string, string | undefined> = {}) {
  const child = spawnOfferdesk(args, env(extra));
  children.push(child);
  return { child, output: outputOf(child) };
}

beforeAll(async () => {
  db = await freshDatabase();
  target = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      forwarded.push({ headers: req.headers, body });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const started = start(['serve', '--port', '0']);
  serve = started.child;
  await started.output.waitFor(/^Offerdesk API listening on /, START_TIMEOUT_MS);
}, START_TIMEOUT_MS);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await new Promise((resolve) => target.close(resolve));
  await db.drop();
  data.remove();
});

async function sendAnOffer(): Promise<string> {
  const [ws] = await db.sql<{ id: string }[]>`select id from workspaces`;
  const offer = await createOffer(db.sql, systemClock, { workspaceId: ws!.id, title: 'Listen trial' });
  await sendOffer(db.sql, systemClock, { offerId: offer.id, recipientEmail: 'buyer@client.test', expiresAt: new Date(Date.now() + 864e5 * 14) });
  return offer.id;
}

describe('offerdesk listen', () => {
  it('prints a verified offer.sent line, forwards it unchanged, and removes its endpoint on Ctrl-C', async () => {
    const forwardTo = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hooks`;
    const { child, output } = start(['listen', '--forward-to', forwardTo, '--events', 'offer.sent,offer.accepted']);
    const [, endpointId] = await output.waitFor(/^ {2}endpoint ([0-9a-f-]{36}): offer\.sent, offer\.accepted$/, START_TIMEOUT_MS);
    const [, secret] = await output.waitFor(/^ {2}signing secret: (whsec_\S+) /);
    firstSecret = secret!;
    await output.waitFor(/^Ready\./);
    expect(output.text()).toContain('workspace: Demo Agency');
    expect(output.text()).toContain('as owner@demo-agency.example');

    const offerId = await sendAnOffer();
    const pattern = new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s+offer\\.sent\\s+${offerId}\\s+verified\\s+202$`);
    await output.waitFor(pattern, 30_000);

    expect(forwarded).toHaveLength(1);
    const verified = new Webhook(secret!).verify(forwarded[0]!.body, forwarded[0]!.headers as Record<string, string>) as {
      type: string;
      data: { offer: { id: string } };
    };
    expect(verified).toMatchObject({ type: 'offer.sent', data: { offer: { id: offerId } } });
    expect(forwarded[0]!.headers['user-agent']).toBe('Offerdesk-Webhooks/1.0');

    child.kill('SIGINT');
    await output.waitFor(new RegExp(`^endpoint ${endpointId} removed$`), 20_000);
    expect(await exitOf(child, 20_000)).toEqual({ code: 0, signal: null });
    const [row] = await db.sql<{ removed: boolean }[]>`select removed_at is not null as removed from webhook_endpoints where id = ${endpointId!}::uuid`;
    expect(row).toEqual({ removed: true });
  }, 180_000);

  it('keeps its signing secret across runs, and answers 400 and prints NOT verified for a wrong signature', async () => {
    const { child, output } = start(['listen']);
    const [, port] = await output.waitFor(/-> 127\.0\.0\.1:(\d+) /, START_TIMEOUT_MS);
    const [, secret] = await output.waitFor(/^ {2}signing secret: (whsec_\S+) /);
    expect(secret).toBe(firstSecret); // a receiver started with it keeps verifying
    await output.waitFor(/^Ready\./);
    const ca = readFileSync(join(data.path, 'listen', 'ca.pem'), 'utf8');
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ id: 'x', type: 'offer.sent', data: {} });
      const now = String(Math.floor(Date.now() / 1000));
      const req = request(
        {
          host: '127.0.0.1',
          port: Number(port),
          servername: 'offerdesk-listen.localhost',
          ca,
          method: 'POST',
          path: '/webhooks',
          headers: { 'content-type': 'application/json', 'webhook-id': 'x', 'webhook-timestamp': now, 'webhook-signature': 'v1,AAAA' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(400);
    await output.waitFor(/\s+offer\.sent\s+-\s+NOT verified\s+400\s+\(/);
    child.kill('SIGTERM');
    expect(await exitOf(child, 20_000)).toEqual({ code: 0, signal: null });
  }, 180_000);

  it('takes over the endpoint of a listen that was killed instead of adding another', async () => {
    const first = start(['listen']);
    const [, endpointId] = await first.output.waitFor(/^ {2}endpoint ([0-9a-f-]{36}): /, START_TIMEOUT_MS);
    first.child.kill('SIGKILL');
    await exitOf(first.child, 20_000);
    const second = start(['listen', '--events', 'offer.accepted']);
    await second.output.waitFor(new RegExp(`^ {2}endpoint ${endpointId} \\(taken over from an earlier listen\\): offer\\.accepted$`), START_TIMEOUT_MS);
    const open = await db.sql<{ id: string; event_types: string[] }[]>`select id, event_types from webhook_endpoints where removed_at is null`;
    expect(open).toEqual([{ id: endpointId, event_types: ['offer.accepted'] }]);
    second.child.kill('SIGINT');
    expect(await exitOf(second.child, 20_000)).toEqual({ code: 0, signal: null });
  }, 180_000);

  it('refuses to run where development mappings are off, with one line and exit code 2', async () => {
    const { child, output } = start(['listen'], { OFFERDESK_DEV_LISTEN: undefined });
    expect(await exitOf(child, START_TIMEOUT_MS)).toEqual({ code: 2, signal: null });
    expect(output.text()).toMatch(/^\[stderr\] offerdesk: development mappings are off here .*OFFERDESK_DEV_LISTEN=1.*\n$/);
  }, 180_000);

  it('refuses OFFERDESK_DEV_LISTEN=1 with NODE_ENV=production', async () => {
    const { child, output } = start(['listen'], { NODE_ENV: 'production' });
    expect(await exitOf(child, START_TIMEOUT_MS)).toEqual({ code: 2, signal: null });
    expect(output.text()).toBe('[stderr] offerdesk: OFFERDESK_DEV_LISTEN cannot be on with NODE_ENV=production; unset one of them\n');
  }, 180_000);
});

it('serve stops cleanly after the listen runs', async () => {
  serve.kill('SIGTERM');
  expect((await exitOf(serve, 30_000)).code).toBe(0);
}, 60_000);

describe('offerdesk listen on the embedded database, with nothing exported', () => {
  it('is on by default, and does not keep up an embedded server it had to start', async () => {
    const embedded = tempDir('listen-embedded');
    try {
      const plain: Record<string, string | undefined> = {
        DATABASE_URL: undefined,
        OFFERDESK_MASTER_KEY: undefined,
        OFFERDESK_DEV_LISTEN: undefined,
        OFFERDESK_DATA_DIR: embedded.path,
      };
      const account = start(['account', 'create', '--email', 'dev@laptop.test', '--name', 'Dev'], plain);
      expect(await exitOf(account.child, START_TIMEOUT_MS)).toEqual({ code: 0, signal: null });
      const ws = start(['workspace', 'create', '--name', 'Laptop', '--timezone', 'UTC', '--currency', 'EUR', '--owner', 'dev@laptop.test'], plain);
      expect(await exitOf(ws.child, START_TIMEOUT_MS)).toEqual({ code: 0, signal: null });

      const { child, output } = start(['listen'], plain);
      await output.waitFor(/^ {2}no server is running on this data directory: start it \(npm start\) to have events sent$/, START_TIMEOUT_MS);
      await output.waitFor(/^Ready\./);
      expect(existsSync(join(embedded.path, 'postgres', 'postmaster.pid'))).toBe(false);

      child.kill('SIGINT');
      await output.waitFor(/^endpoint [0-9a-f-]{36} removed$/, START_TIMEOUT_MS);
      expect(await exitOf(child, START_TIMEOUT_MS)).toEqual({ code: 0, signal: null });
      expect(existsSync(join(embedded.path, 'postgres', 'postmaster.pid'))).toBe(false);
    } finally {
      embedded.remove();
    }
  }, 300_000);
});
