import type { Queryable } from '../../db/connect.js';

/**
 * The one "cancel open deliveries" of openapi.yaml "Webhook delivery and retries" (an endpoint paused) and
 * "Webhook endpoint management" (an endpoint removed): CTEs that take every pending or sending
 * delivery of the endpoints the CTE named `endpoints` returned out of webhook_queue and write each
 * into the delivery log as cancelled with `reason`; `cancelled` returns their ids. For use inside
 * the statement that pauses or removes, so both happen at once; an attempt still in flight finds
 * its delivery gone from the queue when it completes and changes nothing.
 */
export function cancelOpenDeliveries(
  sql: Queryable,
  input: { endpoints: 'paused' | 'removed'; reason: 'endpoint_paused' | 'endpoint_removed'; now: Date },
) {
  const endpoints = sql(input.endpoints);
  return sql`
    closed as (
      delete from webhook_queue d
       using ${endpoints}
       where d.endpoint_id = ${endpoints}.id
      returning d.*
    ),
    cancelled as (
      insert into webhook_delivery_log
        (id, message_id, endpoint_id, workspace_id, event_type, offer_id, is_test, status, attempt_count, max_attempts,
         next_attempt_at, resend_count, failure_reason, created_at, updated_at, finished_at)
      select c.id, c.message_id, c.endpoint_id, c.workspace_id, c.event_type, c.offer_id, c.is_test, 'cancelled', c.attempt_count,
             c.max_attempts, c.next_attempt_at, c.resend_count, ${input.reason}, c.created_at, ${input.now}, ${input.now}
        from closed c
      returning id
    )`;
}
