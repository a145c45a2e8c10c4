import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { addEndpoint, type ManagementDeps } from '../../src/webhooks/management/endpoints.js';
import { sentOffer, workspaceWithKey, type WorkspaceFixture } from '../support/builders.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { devResolveEnv, startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.js';
import { outputOf, spawnOfferdesk } from '../runtime/helpers.js';
import { parseExposition, type Exposition } from './prometheus-text.js';

/**
 * A real run for the observability tests: `offerdesk serve --no-worker` and a separate
 * `offerdesk worker`, each with its own metrics port, on a fresh database, delivering to a real
 * HTTPS receiver whose answers the test scripts.
 */
export interface Stack {
  db: TestDatabase;
  receiver: HttpsReceiver;
  /** http://127.0.0.1:PORT of the API process. */
  apiOrigin: string;
  serverMetricsPort: number;
  workerMetricsPort: number;
  /** A workspace with a key and one endpoint (https://hooks.test/metrics) subscribed to offer.sent. */
  ws: WorkspaceFixture;
  /** Another key of the same workspace, for requests that must not touch `ws.key`'s limit. */
  spareKey: string;
  /** Sends `count` offers (one offer.sent event each). */
  sendOffers(count: number): Promise<void>;
  scrape(port: number): Promise<Exposition>;
  scrapeText(port: number): Promise<string>;
  stop(): Promise<void>;
}

/** A port nothing listens on right now (the metrics port 0 means "off", so tests pick one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startStack(options: { rateLimitPerKey: number; env?: Record<string, string> }): Promise<Stack> {
  const db = await freshDatabase();
  const receiver = await startHttpsReceiver();
  const masterKey = randomBytes(32).toString('base64');
  const children: ChildProcess[] = [];
  const stopChildren = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      OFFERDESK_MASTER_KEY: masterKey,
      OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(receiver),
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      RATE_LIMIT_PER_KEY: String(options.rateLimitPerKey),
      // Under CI these processes share REDIS_URL, and with it 127.0.0.1's per-address window, with
      // every other test process that sends requests at the same time: only the key limit is tested here.
      RATE_LIMIT_PER_IP: '1000000000',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...options.env,
    };
    const serverMetricsPort = await freePort();
    const workerMetricsPort = await freePort();
    const server = spawnOfferdesk(['serve', '--port', '0', '--no-worker', '--json', '--metrics-port', String(serverMetricsPort)], env);
    children.push(server);
    const [, baseUrl] = await outputOf(server).waitFor(/^\{"base_url":"([^"]+)"/, 60_000);
    const apiOrigin = new URL(baseUrl!).origin;
    const worker = spawnOfferdesk(['worker', '--metrics-port', String(workerMetricsPort)], env);
    children.push(worker);
    const workerOutput = outputOf(worker);

    const config = loadConfig({ OFFERDESK_MASTER_KEY: masterKey, OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(receiver) });
    const manage: ManagementDeps = { sql: db.sql, clock: systemClock, config: config.webhooks, masterKey: Buffer.from(masterKey, 'base64') };
    const ws = await workspaceWithKey(db.sql, systemClock);
    const spare = await workspaceWithKey(db.sql, systemClock);
    await addEndpoint(manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/metrics', events: ['offer.sent'], actorId: ws.ownerId });

    const scrapeText = async (port: number) => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      if (response.status !== 200) throw new Error(`GET /metrics on ${port}: ${response.status}`);
      return response.text();
    };
    // The worker serves its metrics once it has started; a bounded wait for its listener.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await scrapeText(workerMetricsPort);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`the worker serves no metrics: ${String(error)}\n${workerOutput.text()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }

    return {
      db,
      receiver,
      apiOrigin,
      serverMetricsPort,
      workerMetricsPort,
      ws,
      spareKey: spare.key,
      async sendOffers(count) {
        for (let i = 0; i < count; i++) await sentOffer(db.sql, systemClock, ws.workspaceId, `Metrics ${i}`);
      },
      scrapeText,
      scrape: async (port) => parseExposition(await scrapeText(port)),
      async stop() {
        await stopChildren();
        await receiver.close();
        await db.drop();
      },
    };
  } catch (error) {
    await stopChildren();
    await receiver.close();
    await db.drop();
    throw error;
  }
}
