import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { runService, type RunningService } from '../../src/server.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { tempDir } from './helpers.js';

// docs/reliability.md "Slow clients are cut off": `serve` on a real socket, with short deadlines so the test
// stays fast; a client that sends one byte every 2 s is cut off at the deadline, not after minutes.

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
const MAX_HEADER_BYTES = 4_096;
/** Node's check interval (a quarter of the header deadline here) plus scheduling slack. */
const SLACK_MS = 600;
const TRICKLE_EVERY_MS = 2_000;
/** Node keeps an idle socket 1 s longer than the Keep-Alive header announces, against races. */
const NODE_KEEP_ALIVE_BUFFER_MS = 1_000;

interface Trickle {
  /** ms from connect to the socket's close */
  closedAfterMs: Promise<number>;
  received(): string;
}

/** Sends `head` at once, then one byte of `drip` every 2 s, until the server closes the socket. */
function trickle(port: number, head: string, drip: string): Trickle {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  let received = '';
  let timer: NodeJS.Timeout | undefined;
  const started = performance.now();
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  socket.once('connect', () => {
    socket.write(head);
    if (drip === '') return;
    let sent = 0;
    timer = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(drip[sent++ % drip.length]!);
    }, TRICKLE_EVERY_MS);
  });
  const closedAfterMs = new Promise<number>((resolve) => {
    socket.once('close', () => {
      clearInterval(timer);
      resolve(performance.now() - started);
    });
  });
  return { closedAfterMs, received: () => received };
}

describe('serve cuts off slow clients', () => {
  let db: TestDatabase;
  let service: RunningService;
  const data = tempDir('slow-clients');
  beforeAll(async () => {
    db = await freshDatabase();
    service = await runService({
      config: loadConfig({
        DATABASE_URL: db.url,
        OFFERDESK_DATA_DIR: data.path,
        OFFERDESK_DEMO_SEED: 'false',
        OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'),
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
        HTTP_MAX_HEADER_BYTES: String(MAX_HEADER_BYTES),
      }),
      port: 0,
      worker: false,
      logger: createLogger('silent'),
      print: () => {},
    });
  });
  afterAll(async () => {
    await service?.stop();
    await db?.drop();
    data.remove();
  });

  it('headers arriving one byte every 2 s are answered 408 and closed at the header deadline', async () => {
    const client = trickle(service.port, 'GET /api/v1/workspace HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n');
    const closedAfter = await client.closedAfterMs;
    expect(closedAfter).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(closedAfter).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a body arriving one byte every 2 s is closed at the request deadline', async () => {
    const head = 'POST /api/v1/offers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n';
    const client = trickle(service.port, head, '{');
    const closedAfter = await client.closedAfterMs;
    expect(closedAfter).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('a request head larger than HTTP_MAX_HEADER_BYTES gets 431 without reaching the API', async () => {
    const res = await fetch(`${service.baseUrl}/workspace`, { headers: { 'x-padding': 'a'.repeat(MAX_HEADER_BYTES) } });
    expect(res.status).toBe(431);
    const small = await fetch(`${service.baseUrl}/workspace`, { headers: { 'x-padding': 'a'.repeat(MAX_HEADER_BYTES / 4) } });
    expect(small.status).toBe(401);
  });

  it('an idle keep-alive connection is announced and kept for HTTP_KEEP_ALIVE_TIMEOUT_MS, then closed', async () => {
    const client = trickle(service.port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', '');
    const closedAfter = await client.closedAfterMs;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received()).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
    expect(closedAfter).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
    expect(closedAfter).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + NODE_KEEP_ALIVE_BUFFER_MS + SLACK_MS);
  });
});
