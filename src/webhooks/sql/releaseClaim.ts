import type { Queryable } from '../../db/connect.js';

/**
 * Gives a claimed delivery back without counting an attempt: pending again at `nextAttemptAt`,
 * if this claim still holds it. Used when the attempt could not be made for a reason of ours
 * (the endpoint secret does not open), never for an answer of the endpoint.
 */
export async function releaseClaim(
  sql: Queryable,
  input: { deliveryId: string; leaseToken: string; nextAttemptAt: Date; now: Date },
): Promise<boolean> {
  const rows = await sql`
    update webhook_queue
       set status = 'pending', lease_token = null, lease_until = null,
           next_attempt_at = ${input.nextAttemptAt}, updated_at = ${input.now}
     where id = ${input.deliveryId}::uuid and status = 'sending' and lease_token = ${input.leaseToken}::uuid
    returning id`;
  return rows.length > 0;
}
