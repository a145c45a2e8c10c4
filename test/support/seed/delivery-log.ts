import type { Queryable } from '../../../src/db/connect.js';

/**
 * A large delivery log for one workspace, written set-based in batches (no row-by-row inserts):
 * `count` messages, each delivered to every given endpoint, spread one minute apart back from
 * `now`, types cycling through the six offer event types, four events per offer. Statuses as a
 * busy log has them: mostly succeeded, 6 % failed (8 attempts made), 2 % cancelled, and the
 * newest `pending` messages still open (due now). Bodies are short stand-ins: the log lists rows
 * and reads a body only on a delivery's page. No attempts are written, so no row carries a last
 * response status; each carries its offer, as the worker writes them (migration 0033). Used by
 * the delivery-log benchmark and by the EXPLAIN and console tests.
 */
export const SEED_TYPES = ['offer.sent', 'offer.first_viewed', 'offer.signed', 'offer.accepted', 'offer.withdrawn', 'offer.expired'] as const;

export interface SeedInput {
  workspaceId: string;
  endpointIds: string[];
  /** Messages; deliveries = count x endpoints. */
  count: number;
  now: Date;
  /** Newest messages left pending (at most 1,000 per endpoint, docs/webhook-delivery.md "Limits"). */
  pending?: number;
  batch?: number;
}

export async function seedDeliveryLog(sql: Queryable, input: SeedInput): Promise<void> {
  const batch = input.batch ?? 100_000;
  const pending = input.pending ?? 100;
  for (let from = 1; from <= input.count; from += batch) {
    const to = Math.min(input.count, from + batch - 1);
    await sql`
      with msgs as (
        insert into webhook_messages (id, workspace_id, type, body, offer_id, created_at)
        select gen_random_uuid(), ${input.workspaceId}::uuid, (${SEED_TYPES as unknown as string[]}::text[])[1 + i % 6],
               '{"seed":true}', md5(${input.workspaceId} || ':' || (i / 4)::text)::uuid,
               ${input.now}::timestamptz - make_interval(mins => i)
          from generate_series(${from}::int, ${to}::int) as i
        returning id, type, offer_id, created_at, (extract(epoch from (${input.now}::timestamptz - created_at)) / 60)::int as i
      ),
      deliveries as (
        select m.id as message_id, e.id as endpoint_id, m.type, m.offer_id, m.created_at, s.status
          from msgs m
         cross join unnest(${input.endpointIds}::uuid[]) as e(id)
         cross join lateral (
               select case when m.i <= ${pending} then 'pending'
                           when m.i % 100 < 6 then 'failed'
                           when m.i % 100 < 8 then 'cancelled'
                           else 'succeeded' end as status) s
      ),
      open as (
        insert into webhook_queue
          (message_id, endpoint_id, workspace_id, event_type, offer_id, is_test, status, attempt_count, max_attempts,
           next_attempt_at, created_at, updated_at)
        select d.message_id, d.endpoint_id, ${input.workspaceId}::uuid, d.type, d.offer_id, false, 'pending', 0, 8,
               d.created_at, d.created_at, d.created_at
          from deliveries d
         where d.status = 'pending'
      )
      insert into webhook_delivery_log
        (message_id, endpoint_id, workspace_id, event_type, offer_id, is_test, status, attempt_count, max_attempts,
         next_attempt_at, failure_reason, created_at, updated_at, finished_at)
      select d.message_id, d.endpoint_id, ${input.workspaceId}::uuid, d.type, d.offer_id, false, d.status,
             case d.status when 'succeeded' then 1 when 'failed' then 8 else 0 end, 8,
             null, case when d.status = 'cancelled' then 'endpoint_paused' end,
             d.created_at, d.created_at, d.created_at
        from deliveries d
       where d.status <> 'pending'`;
  }
  await sql`analyze webhook_messages`;
  await sql`analyze webhook_queue`;
  await sql`analyze webhook_delivery_log`;
}
