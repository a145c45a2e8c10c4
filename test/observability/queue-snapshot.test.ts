import { describe, expect, it } from 'vitest';
import { SECOND } from '../../src/clock.js';
import { metricsSnapshotJob, METRICS_SNAPSHOT_INTERVAL_MS } from '../../src/webhooks/engine/metrics-snapshot-job.js';
import { markEndpointPaused } from '../../src/webhooks/sql/markEndpointPaused.js';
import { readMetricsSnapshot } from '../../src/webhooks/sql/readMetricsSnapshot.js';
import { endpoint, FAIL, sentOffer, useEngineFixture, workspace } from '../webhooks/engine/helpers.js';

/**
 * The queue's gauges come from one row a worker writes every 15 s (docs/operations.md "Metrics"):
 * what it counts, and that the fleet takes it once per period.
 */

const f = useEngineFixture();

describe('the queue snapshot job', () => {
  it('counts waiting, scheduled and in-flight deliveries, the oldest due, the outbox and endpoints by state', async () => {
    const ws = await workspace(f);
    const paused = await endpoint(f, ws, { url: 'https://hooks.test/paused' });
    await markEndpointPaused(f.sql, { endpointId: paused.id, now: f.clock.now(), reason: 'manual' });
    await endpoint(f, ws, { events: ['offer.sent'] });
    const t0 = f.clock.now();

    // One delivery failed and waits for its retry a minute later: scheduled.
    f.sender.reply(() => FAIL);
    await sentOffer(f, ws.workspaceId, 'Failed once');
    await f.engine.fanOut();
    expect(await f.engine.dispatchOnce()).toMatchObject([{ kind: 'retry-scheduled' }]);
    // One claimed and not finished: in flight. One due and not claimed: waiting since t0.
    await sentOffer(f, ws.workspaceId, 'In flight');
    await f.engine.fanOut();
    expect((await f.engine.step(1, false)).claimed.deliveries).toHaveLength(1);
    await sentOffer(f, ws.workspaceId, 'Waiting');
    await f.engine.fanOut();
    // One event committed and not fanned out yet.
    await sentOffer(f, ws.workspaceId, 'In the outbox');
    f.clock.advance(10 * SECOND);

    await metricsSnapshotJob.run(f.deps);
    expect(await readMetricsSnapshot(f.sql)).toEqual({
      takenAt: f.clock.now(),
      deliveriesWaiting: 1,
      deliveriesScheduled: 1,
      deliveriesInFlight: 1,
      oldestDueAt: t0,
      outboxWaiting: 1,
      endpointsActive: 1,
      endpointsPaused: 1,
    });

    // Nothing waiting: no oldest due; the row is replaced, not added to.
    await f.sql`delete from webhook_queue where status = 'pending' and next_attempt_at <= ${f.clock.now()}`;
    await metricsSnapshotJob.run(f.deps);
    expect(await readMetricsSnapshot(f.sql)).toMatchObject({ deliveriesWaiting: 0, oldestDueAt: null });
    expect(await f.sql`select 1 from metrics_snapshot`).toHaveLength(1);
  });

  it('is taken by one worker of the fleet per period', async () => {
    // The fixture's reset empties worker_jobs, not this table.
    await f.sql`delete from metrics_snapshot`;
    expect(await readMetricsSnapshot(f.sql)).toBeUndefined();
    const other = f.anotherEngine();
    const first = await Promise.all([f.engine.runDueJobs(), other.runDueJobs()]);
    expect(first.flat().filter((name) => name === 'metrics-snapshot')).toHaveLength(1);
    f.clock.advance(METRICS_SNAPSHOT_INTERVAL_MS - 1);
    expect(await f.engine.runDueJobs()).not.toContain('metrics-snapshot');
    f.clock.advance(1);
    expect(await other.runDueJobs()).toContain('metrics-snapshot');
    expect((await readMetricsSnapshot(f.sql))?.takenAt).toEqual(f.clock.now());
  });
});
