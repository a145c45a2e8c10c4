import type { Queryable } from '../../db/connect.js';

/**
 * The one "cancel open deliveries" of SPEC.md "Delivery, retries, pause" (an endpoint paused) and
 * "Webhook endpoint management" (an endpoint removed): a `cancelled` CTE that ends every pending or
 * sending delivery of the endpoints the CTE named `endpoints` returned, with `reason`. For use
 * inside the statement that pauses or removes, so both happen at once; an attempt still in flight
 * finds its delivery cancelled when it completes and changes nothing.
 */
export function cancelOpenDeliveries(
  sql: Queryable,
  input: { endpoints: 'paused' | 'removed'; reason: 'endpoint_paused' | 'endpoint_removed'; now: Date },
) {
  const endpoints = sql(input.endpoints);
  return sql`
    cancelled as (
      update webhook_deliveries d
         set status = 'cancelled', failure_reason = ${input.reason}, lease_token = null, lease_until = null,
             finished_at = ${input.now}, updated_at = ${input.now}
        from ${endpoints}
       where d.endpoint_id = ${endpoints}.id and d.status in ('pending', 'sending')
      returning d.id
    )`;
}
