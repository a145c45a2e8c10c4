import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { projectRoot } from '../../../src/paths.js';
import { WORKER_LOCK_CLASS } from '../../../src/webhooks/liveness.js';
import { addEndpoint, type ManagementDeps } from '../../../src/webhooks/management.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { devResolveEnv, startHttpsReceiver, type HttpsReceiver } from '../../support/https-receiver.js';
import { MASTER_KEY, sentOffer, workspace } from './helpers.js';

/**
 * A worker killed with SIGKILL mid-attempt does not stall its endpoint until its lease ends: the
 * lease here is an hour, and another running worker delivers within seconds of the kill, because
 * the killed worker's liveness lock went with its session. While the first worker lives, the
 * second leaves its claim alone.
 */

const CLI = 'src/cli/main.ts';
/** The longest lease config allows: the delivery must not be waiting for it. */
const LEASE_SECONDS = 3600;
/** "Well before the lease would end": the takeover must come within this after the kill. */
const TAKEOVER_BOUND_MS = 15_000;

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

async function delivery(): Promise<{ status: string; lease_until: Date | null }> {
  const [row] = await db.sql<{ status: string; lease_until: Date | null }[]>`select status, lease_until from webhook_deliveries`;
  return row!;
}

async function liveWorkers(): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from pg_locks
     where locktype = 'advisory' and granted and classid::bigint = ${WORKER_LOCK_CLASS}
       and database = (select oid from pg_database where datname = current_database())`;
  return row!.n;
}

describe('a worker killed with SIGKILL', () => {
  it('has its claim taken over by another worker within seconds, not after its one-hour lease', async () => {
    const before = receiver.requests.length;
    const ws = await workspace({ sql: db.sql, clock: systemClock });
    await addEndpoint(manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/killed', events: ['offer.sent'], actorId: ws.ownerId });
    // The first request is held open: the first worker is mid-attempt when it dies.
    receiver.reply((_, index) => (index === before ? { action: 'never' } : { status: 200, body: 'ok' }));
    await sentOffer({ sql: db.sql, clock: systemClock }, ws.workspaceId);

    const first = startWorkerProcess();
    await until(() => receiver.requests.length > before, 30_000, 'the first attempt');
    const claimed = await delivery();
    expect(claimed.status).toBe('sending');
    expect(claimed.lease_until!.getTime() - Date.now()).toBeGreaterThan((LEASE_SECONDS - 120) * 1000);

    const second = startWorkerProcess();
    await until(async () => (await liveWorkers()) === 2, 30_000, 'the second worker to hold its liveness lock');
    // While the first worker lives, its claim is left alone (several poll rounds of the second).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await delivery()).status).toBe('sending');
    expect(receiver.requests.length).toBe(before + 1);

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    await until(async () => (await delivery()).status === 'succeeded', TAKEOVER_BOUND_MS, 'the takeover after the kill');
    expect(Date.now() - killedAt).toBeLessThan(TAKEOVER_BOUND_MS);

    second.child.kill('SIGTERM');
    expect(await second.exited).toMatchObject({ code: 0 });
    const [held, delivered] = receiver.requests.slice(before);
    expect(delivered!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
    expect(receiver.requests.length).toBe(before + 2);
    expect(await liveWorkers()).toBe(0);
  }, 120_000);
});
