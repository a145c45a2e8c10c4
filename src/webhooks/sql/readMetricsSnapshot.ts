import type { Queryable } from '../../db/connect.js';
import type { QueueSnapshot } from '../../telemetry/metrics-queue.js';

/** The one row of metrics_snapshot, read by its key at every scrape; undefined before the first. */
export async function readMetricsSnapshot(sql: Queryable): Promise<QueueSnapshot | undefined> {
  const [row] = await sql<
    {
      taken_at: Date;
      deliveries_waiting: string;
      deliveries_scheduled: string;
      deliveries_in_flight: string;
      oldest_due_at: Date | null;
      outbox_waiting: string;
      endpoints_active: string;
      endpoints_paused: string;
    }[]
  >`
    select taken_at, deliveries_waiting, deliveries_scheduled, deliveries_in_flight, oldest_due_at,
           outbox_waiting, endpoints_active, endpoints_paused
      from metrics_snapshot
     where id`;
  if (!row) return undefined;
  return {
    takenAt: row.taken_at,
    deliveriesWaiting: Number(row.deliveries_waiting),
    deliveriesScheduled: Number(row.deliveries_scheduled),
    deliveriesInFlight: Number(row.deliveries_in_flight),
    oldestDueAt: row.oldest_due_at,
    outboxWaiting: Number(row.outbox_waiting),
    endpointsActive: Number(row.endpoints_active),
    endpointsPaused: Number(row.endpoints_paused),
  };
}
