import type { Queryable } from '../../db/connect.js';

/** Ends a delivery as succeeded, if this claim still holds it. Returns whether it did. */
export async function markDelivered(
  sql: Queryable,
  input: { deliveryId: string; leaseToken: string; now: Date },
): Promise<boolean> {
  const rows = await sql`
    update webhook_deliveries
       set status = 'succeeded', attempt_count = attempt_count + 1, lease_token = null, lease_until = null,
           failure_reason = null, finished_at = ${input.now}, updated_at = ${input.now}
     where id = ${input.deliveryId}::uuid and status = 'sending' and lease_token = ${input.leaseToken}::uuid
    returning id`;
  return rows.length > 0;
}
