import type { Queryable } from '../../db/connect.js';

/**
 * A resend is one more attempt, due now, of the same stored message (same webhook-id, same
 * body): max_attempts becomes the attempts made so far plus one. Only a finished delivery can be
 * resent, at most MAX_RESENDS times (the caller checks and holds the row lock).
 */
export async function resendDelivery(sql: Queryable, input: { deliveryId: string; now: Date }): Promise<boolean> {
  const rows = await sql`
    update webhook_deliveries
       set status = 'pending', next_attempt_at = ${input.now}, max_attempts = attempt_count + 1,
           resend_count = resend_count + 1, failure_reason = null, finished_at = null, updated_at = ${input.now}
     where id = ${input.deliveryId}::uuid and status in ('succeeded', 'failed', 'cancelled')
    returning id`;
  return rows.length > 0;
}
