import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.js';
import { generateEndpointSecret } from '../../src/sealing/secrets.js';
import { signPayload } from '../../src/webhooks/transport/signing.js';
import { exitOf, outputOf } from '../runtime/helpers.js';

/**
 * The `receiver.mjs` of the documentation runs as saved: the first ```js block after the words
 * "Save this as `receiver.mjs`" is written to a file and started with plain `node`, then sent
 * signed, repeated and forged requests.
 */

const DOC = 'README.md';
// Under the project, so that `standardwebhooks` resolves from its node_modules as it would from yours.
const dir = join(projectRoot, 'node_modules', '.cache', `receiver-example-${process.pid}`);
const secret = generateEndpointSecret();
let child: ChildProcess;
let output: ReturnType<typeof outputOf>;
let port: number;

function exampleSource(): string {
  const text = readFileSync(join(projectRoot, DOC), 'utf8');
  const after = text.slice(text.indexOf('Save this as `receiver.mjs`'));
  const match = /```js\n([\s\S]*?)```/.exec(after);
  if (!match) throw new Error(`no js block after "Save this as receiver.mjs" in ${DOC}`);
  return match[1]!;
}

function post(body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/webhooks', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function signed(id: string, body: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signPayload(secret, id, timestamp, body) };
}

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'receiver.mjs'), exampleSource());
  child = spawn(process.execPath, ['receiver.mjs'], {
    cwd: dir,
    env: { PATH: process.env.PATH, OFFERDESK_WEBHOOK_SECRET: secret, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  output = outputOf(child);
  const [, found] = await output.waitFor(/^receiving on http:\/\/127\.0\.0\.1:(\d+)\/webhooks$/, 20_000);
  port = Number(found);
}, 30_000);

afterAll(async () => {
  child.kill('SIGTERM');
  await exitOf(child, 10_000).catch(() => child.kill('SIGKILL'));
  rmSync(dir, { recursive: true, force: true });
});

describe('receiver.mjs from the documentation', () => {
  it('answers 204 to a signed event and prints it once, also when it is repeated', async () => {
    const id = randomUUID();
    const offerId = randomUUID();
    const body = JSON.stringify({ id, type: 'offer.sent', created_at: new Date().toISOString(), api_version: 'v1', data: { offer: { id: offerId }, event: { sequence: 2 } } });
    expect(await post(body, signed(id, body))).toBe(204);
    expect(await post(body, signed(id, body))).toBe(204);
    await output.waitFor(new RegExp(`^offer\\.sent ${offerId} 2$`), 5_000);
    expect(output.text().split('\n').filter((line) => line.includes(offerId))).toHaveLength(1);
  });

  it('answers 400 to a request whose signature does not match its body', async () => {
    const id = randomUUID();
    const body = JSON.stringify({ id, type: 'offer.sent', data: {} });
    expect(await post(`${body} `, signed(id, body))).toBe(400);
  });

  it('answers 400 to a request signed more than 5 minutes ago', async () => {
    const id = randomUUID();
    const body = JSON.stringify({ id, type: 'ping', data: {} });
    const old = Math.floor(Date.now() / 1000) - 6 * 60;
    expect(await post(body, { 'webhook-id': id, 'webhook-timestamp': String(old), 'webhook-signature': signPayload(secret, id, old, body) })).toBe(400);
  });
});
