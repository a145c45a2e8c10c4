import { spawn, type ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { projectRoot } from '../../../src/paths.js';
import { addEndpoint, type ManagementDeps } from '../../../src/webhooks/management.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { devResolveEnv, startHttpsReceiver, type HttpsReceiver } from '../../support/https-receiver.js';
import { MASTER_KEY, sentOffer, workspace } from './helpers.js';

/**
 * The real `offerdesk worker` process against a real receiver: killed with SIGKILL during an
 * attempt it loses nothing (another worker attempts again after the lease, same webhook-id);
 * SIGTERM lets the attempt in flight finish and record its outcome.
 */

const CLI = 'src/cli/main.ts';
const LEASE_SECONDS = 12;

let db: TestDatabase;
let receiver: HttpsReceiver;
let manage: ManagementDeps;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  db = await freshDatabase();
  receiver = await startHttpsReceiver();
  const config = loadConfig({ OFFERDESK_MASTER_KEY: MASTER_KEY, OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(receiver) });
  manage = { sql: db.sql, clock: systemClock, config: config.webhooks, masterKey: Buffer.from(MASTER_KEY, 'base64') };
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await receiver.close();
  await db.drop();
});

function startWorkerProcess(): { child: ChildProcess; exited: Promise<{ code: number | null; signal: string | null }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'worker'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      OFFERDESK_MASTER_KEY: MASTER_KEY,
      OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(receiver),
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, exited };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function deliveryStatus(): Promise<string[]> {
  const rows = await db.sql<{ status: string }[]>`select status from webhook_deliveries order by created_at`;
  return rows.map((row) => row.status);
}

describe('the worker process', () => {
  it('loses nothing when killed during an attempt: the delivery arrives after the lease, with the same webhook-id', async () => {
    await db.sql`truncate accounts, workspaces cascade`;
    const before = receiver.requests.length;
    const ws = await workspace({ sql: db.sql, clock: systemClock });
    const { secret } = await addEndpoint(manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/crash', events: ['offer.sent'], actorId: ws.ownerId });
    // The first request is held open: the worker is mid-attempt when it dies.
    receiver.reply((_, index) => (index === before ? { action: 'never' } : { status: 200, body: 'ok' }));
    await sentOffer({ sql: db.sql, clock: systemClock }, ws.workspaceId);

    const first = startWorkerProcess();
    await until(() => receiver.requests.length > before, 20_000, 'the first attempt');
    first.child.kill('SIGKILL');
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(await deliveryStatus()).toEqual(['sending']);

    const second = startWorkerProcess();
    await until(async () => (await deliveryStatus())[0] === 'succeeded', (LEASE_SECONDS + 20) * 1000, 'the delivery after the lease');
    second.child.kill('SIGTERM');
    expect(await second.exited).toMatchObject({ code: 0 });

    const [held, delivered] = receiver.requests.slice(before);
    expect(delivered!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
    expect(delivered!.body.equals(held!.body)).toBe(true);
    expect(() => new Webhook(secret).verify(delivered!.body.toString('utf8'), delivered!.headers)).not.toThrow();
  }, 90_000);

  it('finishes the attempt in flight on SIGTERM and records its outcome before exiting', async () => {
    await db.sql`truncate accounts, workspaces cascade`;
    const before = receiver.requests.length;
    const ws = await workspace({ sql: db.sql, clock: systemClock });
    await addEndpoint(manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/slow', events: ['offer.sent'], actorId: ws.ownerId });
    receiver.reply(() => ({ status: 200, body: 'ok', delayMs: 2_000 }));
    await sentOffer({ sql: db.sql, clock: systemClock }, ws.workspaceId);

    const worker = startWorkerProcess();
    await until(() => receiver.requests.length > before, 20_000, 'the attempt');
    worker.child.kill('SIGTERM');

    expect(await worker.exited).toMatchObject({ code: 0 });
    expect(await deliveryStatus()).toEqual(['succeeded']);
  }, 60_000);
});
