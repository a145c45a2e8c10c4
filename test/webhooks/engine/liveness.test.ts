import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { claimBatch } from '../../../src/webhooks/engine/claim.js';
import { maxInFlightPerEndpoint } from '../../../src/webhooks/engine/policy.js';
import { holdWorkerLiveness, WORKER_LOCK_CLASS } from '../../../src/webhooks/engine/liveness.js';
import { endpoint, sentOffer, useEngineFixture, workspace } from './helpers.js';

/**
 * Workers known to be alive: a claim names its worker's liveness lock, and once that lock is
 * gone (the worker's session ended) the claim is taken over at once, long before its lease ends.
 * The clock does not move in these tests: only the lock decides.
 */
const f = useEngineFixture({ leaseMs: 60 * 60_000 });

async function oneDueDelivery() {
  const ws = await workspace(f);
  await endpoint(f, ws, { events: ['offer.sent'] });
  await sentOffer(f, ws.workspaceId);
  await f.engine.fanOut();
}

async function deliveryRow() {
  const [row] = await f.sql<{ status: string; lease_worker: number | null; lease_token: string | null }[]>`
    select status, lease_worker, lease_token from webhook_deliveries`;
  return row!;
}

describe('claims of a worker whose session is gone', () => {
  it('stay with a live worker until its lease ends, and go to another worker at once when it dies', async () => {
    await oneDueDelivery();
    // "Worker A": a session holding A's liveness lock, as liveness.ts takes it.
    const session = await f.sql.reserve();
    await session`select pg_advisory_lock(${WORKER_LOCK_CLASS}::int, 4242::int)`;
    const claimedByA = await claimBatch({ ...f.deps, workerId: () => 4242 }, 1);
    expect(claimedByA.deliveries).toHaveLength(1);
    expect(await deliveryRow()).toMatchObject({ status: 'sending', lease_worker: 4242 });

    const workerB = { ...f.deps, workerId: () => 7 };
    expect((await claimBatch(workerB, 1)).deliveries).toHaveLength(0);

    // A's session ends (its process was killed): the lock goes with it.
    await session`select pg_advisory_unlock_all()`;
    session.release();
    const claimedByB = await claimBatch(workerB, 1);
    expect(claimedByB.deliveries.map((d) => d.id)).toEqual(claimedByA.deliveries.map((d) => d.id));
    expect(claimedByB.deliveries[0]!.lease_token).not.toBe(claimedByA.deliveries[0]!.lease_token);
    expect(await deliveryRow()).toMatchObject({ status: 'sending', lease_worker: 7 });
  });

  it("a dead worker's claims no longer count toward the endpoint's attempts in flight", async () => {
    const ws = await workspace(f);
    await endpoint(f, ws, { events: ['offer.sent'] });
    const share = maxInFlightPerEndpoint(f.deps.settings.concurrency);
    for (let i = 0; i < share + 2; i++) await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();
    const session = await f.sql.reserve();
    await session`select pg_advisory_lock(${WORKER_LOCK_CLASS}::int, 4243::int)`;
    expect((await claimBatch({ ...f.deps, workerId: () => 4243 }, share + 2)).deliveries).toHaveLength(share);

    // Its share is taken while it lives, although more deliveries of the endpoint are due.
    const workerB = { ...f.deps, workerId: () => 8 };
    expect((await claimBatch(workerB, share + 2)).deliveries).toHaveLength(0);

    await session`select pg_advisory_unlock_all()`;
    session.release();
    // Dead: its claims are free again and the endpoint's share is B's to use.
    expect((await claimBatch(workerB, share + 2)).deliveries).toHaveLength(share);
  });

  it("gives a dead worker's claims back to their own endpoints, oldest first, and leaves a live worker's alone", async () => {
    const share = maxInFlightPerEndpoint(f.deps.settings.concurrency);
    const withDueDeliveries = async () => {
      const ws = await workspace(f);
      await endpoint(f, ws, { events: ['offer.sent'] });
      for (let i = 0; i < share; i++) await sentOffer(f, ws.workspaceId);
      await f.engine.fanOut();
      return ws.workspaceId;
    };
    const dead = await f.sql.reserve();
    await dead`select pg_advisory_lock(${WORKER_LOCK_CLASS}::int, 4244::int)`;
    const live = await f.sql.reserve();
    await live`select pg_advisory_lock(${WORKER_LOCK_CLASS}::int, 4245::int)`;
    const taken = [await withDueDeliveries(), await withDueDeliveries()];
    const byDead = await claimBatch({ ...f.deps, workerId: () => 4244 }, 2 * share);
    const kept = await withDueDeliveries();
    expect((await claimBatch({ ...f.deps, workerId: () => 4245 }, share)).deliveries).toHaveLength(share);
    // Each endpoint also has a newer due delivery, which comes after the claims taken over.
    f.clock.advance(1000);
    for (const workspaceId of [...taken, kept]) await sentOffer(f, workspaceId);
    await f.engine.fanOut();

    await dead`select pg_advisory_unlock_all()`;
    dead.release();
    const byOther = await claimBatch({ ...f.deps, workerId: () => 9 }, 3 * share + 3);

    const ids = (batch: typeof byOther) => batch.deliveries.map((d) => d.id).sort();
    expect(byDead.deliveries).toHaveLength(2 * share);
    expect(ids(byOther)).toEqual(ids(byDead));
    await live`select pg_advisory_unlock_all()`;
    live.release();
  });

  it('a claim without a liveness id (an older process) still waits for its lease', async () => {
    await oneDueDelivery();
    expect((await claimBatch(f.deps, 1)).deliveries).toHaveLength(1);
    expect((await claimBatch({ ...f.deps, workerId: () => 7 }, 1)).deliveries).toHaveLength(0);
  });
});

describe('holdWorkerLiveness', () => {
  it('holds a lock other sessions see, and on a graceful stop hands back the claims it still holds', async () => {
    await oneDueDelivery();
    const liveness = await holdWorkerLiveness({ sql: f.sql, databaseUrl: f.db.url, clock: f.clock, logger: createLogger('silent') });
    const id = liveness.workerId!;
    expect(id).toBeGreaterThan(0);
    const [seen] = await f.sql<{ n: number }[]>`
      select count(*)::int as n from pg_locks
       where locktype = 'advisory' and classid::bigint = ${WORKER_LOCK_CLASS} and objid::bigint = ${id} and granted`;
    expect(seen!.n).toBe(1);
    expect(await liveness.ensure()).toBe(id);

    await claimBatch({ ...f.deps, workerId: () => liveness.workerId }, 1);
    expect(await deliveryRow()).toMatchObject({ status: 'sending', lease_worker: id });
    expect(await liveness.release()).toBe(1);
    expect(await deliveryRow()).toEqual({ status: 'pending', lease_worker: null, lease_token: null });
    const [gone] = await f.sql<{ n: number }[]>`
      select count(*)::int as n from pg_locks where locktype = 'advisory' and objid::bigint = ${id}`;
    expect(gone!.n).toBe(0);
    // Handed back, it is due as before: the next claim takes it without the clock moving.
    expect((await claimBatch(f.deps, 1)).deliveries).toHaveLength(1);
  });

  it('takes a new lock when its connection was terminated', async () => {
    const liveness = await holdWorkerLiveness({ sql: f.sql, databaseUrl: f.db.url, clock: f.clock, logger: createLogger('silent') });
    const first = liveness.workerId!;
    await f.sql`
      select pg_terminate_backend(pid) from pg_locks
       where locktype = 'advisory' and classid::bigint = ${WORKER_LOCK_CLASS} and objid::bigint = ${first}`;
    const second = await liveness.ensure();
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    await liveness.release();
  });
});
