import type { Queryable } from '../../db/connect.js';
import { finishDeliveries } from './finishDeliveries.js';

/**
 * The one "cancel open deliveries" of openapi.yaml "Webhook delivery and retries" (an endpoint paused) and
 * "Webhook endpoint management" (an endpoint removed): CTEs that take every pending or sending
 * delivery of the endpoints the CTE named `endpoints` returned out of webhook_queue and write each
 * into the delivery log as cancelled with `reason` (finishDeliveries.ts); `cancelled` returns
 * their ids. For use inside the statement that pauses or removes, so both happen at once; an
 * attempt still in flight finds its delivery gone from the queue when it completes and changes
 * nothing.
 */
export function cancelOpenDeliveries(
  sql: Queryable,
  input: { endpoints: 'paused' | 'removed'; reason: 'endpoint_paused' | 'endpoint_removed'; now: Date },
) {
  const endpoints = sql(input.endpoints);
  return finishDeliveries(sql, {
    name: 'cancelled',
    ending: sql`
      select d.id, null::uuid as lease_token, 'cancelled'::text as end_status, 0 as attempts_added,
             ${input.reason}::text as end_reason, ${input.now}::timestamptz as ended_at, null::integer as last_response_status
        from webhook_queue d
        join ${endpoints} on ${endpoints}.id = d.endpoint_id`,
  });
}
