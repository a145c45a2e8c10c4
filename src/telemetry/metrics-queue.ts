import { Gauge } from 'prom-client';
import { metricsRegistry } from './metrics.js';

/**
 * The queue's state as one worker last measured it (src/webhooks/engine/metrics-snapshot-job.ts,
 * table metrics_snapshot): every process's /metrics reads that one row, so a scrape costs one
 * primary-key read however long the queue is, and the fleet's processes all report the same numbers.
 */
export interface QueueSnapshot {
  takenAt: Date;
  deliveriesWaiting: number;
  deliveriesScheduled: number;
  deliveriesInFlight: number;
  /** Due time of the oldest pending delivery that is due; null when none waits. */
  oldestDueAt: Date | null;
  outboxWaiting: number;
  endpointsActive: number;
  endpointsPaused: number;
}

/** Reads the stored snapshot; undefined before the first one. Set by serve and worker. */
export type QueueSnapshotReader = () => Promise<QueueSnapshot | undefined>;

let reader: QueueSnapshotReader | undefined;
/** The scrape that reads the row sets every gauge below: one read per scrape, not one per gauge. */
let pending: Promise<QueueSnapshot | undefined> | undefined;
let onReadError: ((error: unknown) => void) | undefined;

export function readQueueSnapshotWith(read: QueueSnapshotReader, whenFailing?: (error: unknown) => void): void {
  reader = read;
  onReadError = whenFailing;
}

function currentSnapshot(): Promise<QueueSnapshot | undefined> {
  if (!reader) return Promise.resolve(undefined);
  pending ??= reader()
    .catch((error: unknown) => {
      // The gauges keep their last values; offerdesk_queue_snapshot_timestamp_seconds shows their age.
      onReadError?.(error);
      return undefined;
    })
    .finally(() => {
      pending = undefined;
    });
  return pending;
}

const registers = [metricsRegistry];

new Gauge({
  name: 'offerdesk_webhook_deliveries',
  help: 'Open webhook deliveries by state: waiting (due, not started), scheduled (a retry later), in_flight (an attempt running).',
  labelNames: ['state'] as const,
  registers,
  async collect() {
    const s = await currentSnapshot();
    if (!s) return;
    this.set({ state: 'waiting' }, s.deliveriesWaiting);
    this.set({ state: 'scheduled' }, s.deliveriesScheduled);
    this.set({ state: 'in_flight' }, s.deliveriesInFlight);
  },
});

new Gauge({
  name: 'offerdesk_webhook_oldest_due_seconds',
  help: 'How long the oldest due webhook delivery has waited for its attempt, at scrape time; 0 when none waits.',
  registers,
  async collect() {
    const s = await currentSnapshot();
    if (!s) return;
    this.set(s.oldestDueAt === null ? 0 : Math.max(0, (Date.now() - s.oldestDueAt.getTime()) / 1000));
  },
});

new Gauge({
  name: 'offerdesk_outbox_events_waiting',
  help: 'Committed events due for fan-out that no worker has turned into deliveries yet.',
  registers,
  async collect() {
    const s = await currentSnapshot();
    if (s) this.set(s.outboxWaiting);
  },
});

new Gauge({
  name: 'offerdesk_webhook_endpoints',
  help: 'Webhook endpoints (not removed) by state.',
  labelNames: ['state'] as const,
  registers,
  async collect() {
    const s = await currentSnapshot();
    if (!s) return;
    this.set({ state: 'active' }, s.endpointsActive);
    this.set({ state: 'paused' }, s.endpointsPaused);
  },
});

new Gauge({
  name: 'offerdesk_queue_snapshot_timestamp_seconds',
  help: 'Unix time of the queue snapshot the gauges above come from (taken by one worker every 15 s).',
  registers,
  async collect() {
    const s = await currentSnapshot();
    if (s) this.set(s.takenAt.getTime() / 1000);
  },
});
