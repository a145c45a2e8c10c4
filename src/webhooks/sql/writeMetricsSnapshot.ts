import type { Queryable } from '../../db/connect.js';

/**
 * Measures the queue and stores it as the one row of metrics_snapshot (migration 0018), in one
 * statement: open deliveries by state from webhook_queue (open ones only), the outbox rows due
 * for fan-out, and the endpoints not removed by state.
 */
export async function writeMetricsSnapshot(sql: Queryable, input: { now: Date }): Promise<void> {
  const { now } = input;
  await sql`
    insert into metrics_snapshot as s (id, taken_at, deliveries_waiting, deliveries_scheduled, deliveries_in_flight,
                                       oldest_due_at, outbox_waiting, endpoints_active, endpoints_paused)
    select true, ${now}, d.waiting, d.scheduled, d.in_flight, d.oldest_due, o.waiting, e.active, e.paused
      from (select count(*) filter (where status = 'pending' and next_attempt_at <= ${now}) as waiting,
                   count(*) filter (where status = 'pending' and next_attempt_at > ${now}) as scheduled,
                   count(*) filter (where status = 'sending') as in_flight,
                   min(next_attempt_at) filter (where status = 'pending' and next_attempt_at <= ${now}) as oldest_due
              from webhook_queue) d,
           (select count(*) as waiting from webhook_outbox where available_at <= ${now}) o,
           (select count(*) filter (where state = 'active') as active,
                   count(*) filter (where state = 'paused') as paused
              from webhook_endpoints
             where removed_at is null) e
    on conflict (id) do update
       set taken_at = excluded.taken_at, deliveries_waiting = excluded.deliveries_waiting,
           deliveries_scheduled = excluded.deliveries_scheduled, deliveries_in_flight = excluded.deliveries_in_flight,
           oldest_due_at = excluded.oldest_due_at, outbox_waiting = excluded.outbox_waiting,
           endpoints_active = excluded.endpoints_active, endpoints_paused = excluded.endpoints_paused`;
}
