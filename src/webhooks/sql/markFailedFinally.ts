import type { Queryable } from '../../db/connect.js';

/** Ends a delivery as failed after its last attempt, if this claim still holds it. */
export async function markFailedFinally(
  sql: Queryable,
  input: { deliveryId: string; leaseToken: string; now: Date },
): Promise<boolean> {
  const rows = await sql`
    update webhook_deliveries
       set status = 'failed', attempt_count = attempt_count + 1, lease_token = null, lease_until = null,
           finished_at = ${input.now}, updated_at = ${input.now}
     where id = ${input.deliveryId}::uuid and status = 'sending' and lease_token = ${input.leaseToken}::uuid
    returning id`;
  return rows.length > 0;
}
