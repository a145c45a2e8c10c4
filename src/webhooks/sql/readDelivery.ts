import type { Queryable } from '../../db/connect.js';
import type { DeliveryRow } from '../delivery.js';

export interface DeliveryDetailRow extends DeliveryRow {
  body: string;
  endpoint_state: 'active' | 'paused';
  endpoint_removed: boolean;
}

/**
 * One delivery, open or finished. `forUpdate` locks its row when it is finished (in the delivery
 * log: what a resend takes); an open delivery is read without a lock (a view of a union cannot be
 * locked, and nothing is done to an open one but refusing). Its message is found by id and the
 * delivery's created_at, which is the message's: one partition of webhook_messages (migration 0032).
 */
export async function readDelivery(
  sql: Queryable,
  input: { deliveryId: string; forUpdate?: boolean },
): Promise<DeliveryDetailRow | null> {
  const read = (from: 'webhook_delivery_log' | 'webhook_deliveries', lock: boolean) => sql<DeliveryDetailRow[]>`
    select d.id, d.endpoint_id, d.workspace_id, d.message_id, m.type, d.status, d.attempt_count, d.max_attempts,
           d.next_attempt_at, d.resend_count, d.is_test, d.failure_reason, d.created_at, d.updated_at, d.finished_at,
           m.body, e.state as endpoint_state, e.removed_at is not null as endpoint_removed
      from ${sql(from)} d
      -- A probe per delivery, which run-time pruning sends to one day's partition (a plain join may
      -- be planned as a hash over every day's).
      cross join lateral (select m.type, m.body from webhook_messages m
                           where m.id = d.message_id and m.created_at = d.created_at limit 1) m
      join webhook_endpoints e on e.id = d.endpoint_id
     where d.id = ${input.deliveryId}::uuid
     ${lock ? sql`for update of d` : sql``}`;
  if (input.forUpdate) {
    const [finished] = await read('webhook_delivery_log', true);
    if (finished) return finished;
  }
  const [row] = await read('webhook_deliveries', false);
  return row ?? null;
}
