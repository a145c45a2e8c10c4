import type { Queryable } from '../../db/connect.js';
import { insertLogRows } from './finishDeliveries.js';

export interface NewDelivery {
  messageId: string;
  endpointId: string;
}

export interface InsertedDelivery {
  id: string;
  message_id: string;
  endpoint_id: string;
  status: 'pending' | 'failed';
}

/**
 * One delivery per (message, endpoint), due now. docs/webhook-delivery.md "Limits": "An endpoint already
 * holding 1,000 open deliveries gets no more queued: further deliveries are recorded as failed in
 * the delivery log without an attempt and can be resent from there." The open count and the
 * position within this batch decide it per row, in the same statement: a queued delivery goes into
 * webhook_queue, one recorded as failed straight into the delivery log (it never opens), through
 * the log's one writer (finishDeliveries.ts).
 *
 * A delivery's created_at is its message's (the same `now` where both are made in one
 * transaction), written from the message so it holds by construction: retention finds the log
 * rows that still refer to an old message by it (migration 0031, src/jobs/sql/deleteExpiredLog.ts).
 * The messages are those the caller made at `now` in the same transaction (insertMessages): found
 * by (id, created_at), in that day's partition of webhook_messages only (migration 0032).
 */
export async function insertDeliveries(
  sql: Queryable,
  input: { deliveries: NewDelivery[]; isTest: boolean; maxAttempts: number; maxOpenPerEndpoint: number; now: Date },
): Promise<InsertedDelivery[]> {
  const { deliveries, isTest, maxAttempts, maxOpenPerEndpoint, now } = input;
  if (deliveries.length === 0) return [];
  return sql<InsertedDelivery[]>`
    with input as (
      select i.message_id, i.endpoint_id, i.ord
        from unnest(${deliveries.map((d) => d.messageId)}::uuid[],
                    ${deliveries.map((d) => d.endpointId)}::uuid[]) with ordinality as i(message_id, endpoint_id, ord)
    ),
    placed as materialized (
      select i.message_id, i.endpoint_id, i.ord, e.workspace_id, m.type as event_type, m.offer_id, m.created_at,
             (select count(*) from webhook_queue q where q.endpoint_id = i.endpoint_id)
             + row_number() over (partition by i.endpoint_id order by i.ord) <= ${maxOpenPerEndpoint} as queued
        from input i
        join webhook_endpoints e on e.id = i.endpoint_id
        join webhook_messages m on m.id = i.message_id and m.created_at = ${now}
    ),
    queued as (
      insert into webhook_queue
        (message_id, endpoint_id, workspace_id, event_type, offer_id, is_test, status, max_attempts, next_attempt_at, created_at, updated_at)
      select p.message_id, p.endpoint_id, p.workspace_id, p.event_type, p.offer_id, ${isTest}, 'pending', ${maxAttempts}, ${now}, p.created_at, ${now}
        from placed p
       where p.queued
       order by p.ord
      on conflict (message_id, endpoint_id) do nothing
      returning id, message_id, endpoint_id, status
    ),
    refused_rows as (
      select gen_random_uuid() as id, p.message_id, p.endpoint_id, p.workspace_id, p.event_type, p.offer_id, ${isTest}::boolean as is_test,
             'failed'::text as end_status, 0 as attempt_count, ${maxAttempts}::integer as max_attempts, ${now}::timestamptz as next_attempt_at,
             0 as resend_count, 'endpoint_queue_full'::text as end_reason, p.created_at, ${now}::timestamptz as ended_at,
             null::integer as last_response_status
        from placed p
       where not p.queued
    ),
    refused as (
      ${insertLogRows(sql, 'refused_rows')}
      on conflict do nothing
      returning id, message_id, endpoint_id, status
    )
    select * from queued
    union all
    select * from refused`;
}
