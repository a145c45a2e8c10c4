import type { Queryable } from '../../db/connect.js';
import type { DeliveryRow } from '../delivery.js';

export interface DeliveryDetailRow extends DeliveryRow {
  body: string;
  endpoint_state: 'active' | 'paused';
  endpoint_removed: boolean;
}

export async function readDelivery(
  sql: Queryable,
  input: { deliveryId: string; forUpdate?: boolean },
): Promise<DeliveryDetailRow | null> {
  const lock = input.forUpdate ? sql`for update of d` : sql``;
  const [row] = await sql<DeliveryDetailRow[]>`
    select d.id, d.endpoint_id, d.workspace_id, d.message_id, m.type, d.status, d.attempt_count, d.max_attempts,
           d.next_attempt_at, d.resend_count, d.is_test, d.failure_reason, d.created_at, d.updated_at, d.finished_at,
           m.body, e.state as endpoint_state, e.removed_at is not null as endpoint_removed
      from webhook_deliveries d
      join webhook_messages m on m.id = d.message_id
      join webhook_endpoints e on e.id = d.endpoint_id
     where d.id = ${input.deliveryId}::uuid
     ${lock}`;
  return row ?? null;
}
