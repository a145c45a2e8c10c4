import { describe, expect, it } from 'vitest';
import { WORKER_LOCK_CLASS } from '../../../src/webhooks/engine/liveness.js';
import { systemClock } from '../../../src/clock.js';
import { addEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { sentOffer, workspace } from './helpers.js';
import { useWorkerProcesses } from './worker-harness.js';

/**
 * A worker killed with SIGKILL mid-attempt does not stall its endpoint until its lease ends: the
 * lease here is an hour, and another running worker delivers within seconds of the kill, because
 * the killed worker's liveness lock went with its session. While the first worker lives, the
 * second leaves its claim alone.
 */

/** The longest lease config allows: the delivery must not be waiting for it. */
const LEASE_SECONDS = 3600;
/** "Well before the lease would end": the takeover must come within this after the kill. */
const TAKEOVER_BOUND_MS = 15_000;

const h = useWorkerProcesses({ leaseSeconds: LEASE_SECONDS });

async function delivery(): Promise<{ status: string; lease_until: Date | null }> {
  const [row] = await h.db.sql<{ status: string; lease_until: Date | null }[]>`select status, lease_until from webhook_deliveries`;
  return row!;
}

async function liveWorkers(): Promise<number> {
  const [row] = await h.db.sql<{ n: number }[]>`
    select count(*)::int as n from pg_locks
     where locktype = 'advisory' and granted and classid::bigint = ${WORKER_LOCK_CLASS}
       and database = (select oid from pg_database where datname = current_database())`;
  return row!.n;
}

describe('a worker killed with SIGKILL', () => {
  it('has its claim taken over by another worker within seconds, not after its one-hour lease', async () => {
    const before = h.receiver.requests.length;
    const ws = await workspace({ sql: h.db.sql, clock: systemClock });
    await addEndpoint(h.manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/killed', events: ['offer.sent'], actorId: ws.ownerId });
    // The first request is held open: the first worker is mid-attempt when it dies.
    h.receiver.reply((_, index) => (index === before ? { action: 'never' } : { status: 200, body: 'ok' }));
    await sentOffer({ sql: h.db.sql, clock: systemClock }, ws.workspaceId);

    const first = h.startWorkerProcess();
    await h.until(() => h.receiver.requests.length > before, 30_000, 'the first attempt');
    const claimed = await delivery();
    expect(claimed.status).toBe('sending');
    expect(claimed.lease_until!.getTime() - Date.now()).toBeGreaterThan((LEASE_SECONDS - 120) * 1000);

    const second = h.startWorkerProcess();
    await h.until(async () => (await liveWorkers()) === 2, 30_000, 'the second worker to hold its liveness lock');
    // While the first worker lives, its claim is left alone (several poll rounds of the second).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await delivery()).status).toBe('sending');
    expect(h.receiver.requests.length).toBe(before + 1);

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    await h.until(async () => (await delivery()).status === 'succeeded', TAKEOVER_BOUND_MS, 'the takeover after the kill');
    expect(Date.now() - killedAt).toBeLessThan(TAKEOVER_BOUND_MS);

    second.child.kill('SIGTERM');
    expect(await second.exited).toMatchObject({ code: 0 });
    const [held, delivered] = h.receiver.requests.slice(before);
    expect(delivered!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
    expect(h.receiver.requests.length).toBe(before + 2);
    expect(await liveWorkers()).toBe(0);
  }, 120_000);
});
