import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { addEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { sentOffer, workspace } from './helpers.js';
import { useWorkerProcesses } from './worker-harness.js';

/**
 * The real `offerdesk worker` process against a real receiver: killed with SIGKILL during an
 * attempt it loses nothing (another worker attempts again after the lease, same webhook-id);
 * SIGTERM lets the attempt in flight finish and record its outcome.
 */

const LEASE_SECONDS = 12;

const h = useWorkerProcesses({ leaseSeconds: LEASE_SECONDS });

async function deliveryStatus(): Promise<string[]> {
  const rows = await h.db.sql<{ status: string }[]>`select status from webhook_deliveries order by created_at`;
  return rows.map((row) => row.status);
}

describe('the worker process', () => {
  it('loses nothing when killed during an attempt: the delivery arrives after the lease, with the same webhook-id', async () => {
    await h.db.sql`truncate accounts, workspaces cascade`;
    const before = h.receiver.requests.length;
    const ws = await workspace({ sql: h.db.sql, clock: systemClock });
    const { secret } = await addEndpoint(h.manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/crash', events: ['offer.sent'], actorId: ws.ownerId });
    // The first request is held open: the worker is mid-attempt when it dies.
    h.receiver.reply((_, index) => (index === before ? { action: 'never' } : { status: 200, body: 'ok' }));
    await sentOffer({ sql: h.db.sql, clock: systemClock }, ws.workspaceId);

    const first = h.startWorkerProcess();
    await h.until(() => h.receiver.requests.length > before, 20_000, 'the first attempt');
    first.child.kill('SIGKILL');
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(await deliveryStatus()).toEqual(['sending']);

    const second = h.startWorkerProcess();
    await h.until(async () => (await deliveryStatus())[0] === 'succeeded', (LEASE_SECONDS + 20) * 1000, 'the delivery after the lease');
    second.child.kill('SIGTERM');
    expect(await second.exited).toMatchObject({ code: 0 });

    const [held, delivered] = h.receiver.requests.slice(before);
    expect(delivered!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
    expect(delivered!.body.equals(held!.body)).toBe(true);
    expect(() => new Webhook(secret).verify(delivered!.body.toString('utf8'), delivered!.headers)).not.toThrow();
  }, 90_000);

  it('finishes the attempt in flight on SIGTERM and records its outcome before exiting', async () => {
    await h.db.sql`truncate accounts, workspaces cascade`;
    const before = h.receiver.requests.length;
    const ws = await workspace({ sql: h.db.sql, clock: systemClock });
    await addEndpoint(h.manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/slow', events: ['offer.sent'], actorId: ws.ownerId });
    h.receiver.reply(() => ({ status: 200, body: 'ok', delayMs: 2_000 }));
    await sentOffer({ sql: h.db.sql, clock: systemClock }, ws.workspaceId);

    const worker = h.startWorkerProcess();
    await h.until(() => h.receiver.requests.length > before, 20_000, 'the attempt');
    worker.child.kill('SIGTERM');

    expect(await worker.exited).toMatchObject({ code: 0 });
    expect(await deliveryStatus()).toEqual(['succeeded']);
  }, 60_000);
});
