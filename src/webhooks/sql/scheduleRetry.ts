import type { Queryable } from '../../db/connect.js';

/** Puts a delivery back to pending until its next attempt, if this claim still holds it. */
export async function scheduleRetry(
  sql: Queryable,
  input: { deliveryId: string; leaseToken: string; nextAttemptAt: Date; now: Date },
): Promise<boolean> {
  const rows = await sql`
    update webhook_deliveries
       set status = 'pending', attempt_count = attempt_count + 1, lease_token = null, lease_until = null,
           next_attempt_at = ${input.nextAttemptAt}, updated_at = ${input.now}
     where id = ${input.deliveryId}::uuid and status = 'sending' and lease_token = ${input.leaseToken}::uuid
    returning id`;
  return rows.length > 0;
}
