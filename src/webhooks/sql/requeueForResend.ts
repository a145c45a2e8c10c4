import type { Queryable } from '../../db/connect.js';

/** Which deliveries a resend takes: one finished delivery, or an endpoint's failed ones since a time. */
export type ResendSelection = { deliveryId: string } | { endpointId: string; since: Date };

/**
 * The one resend statement (SPEC.md "Delivery, retries, pause": a delivery "can be resent from the
 * delivery log up to 5 times; a resend has the same webhook-id and body"). A resend is one more
 * attempt, due now, of the same stored message: max_attempts becomes the attempts made so far plus
 * one. Only a finished delivery with a resend left is taken: one delivery in any finished status,
 * or every failed delivery of an endpoint created at or after `since`. The caller holds the row
 * lock (the delivery's, or the endpoint's for a batch) and has checked the endpoint's room for
 * open deliveries. Returns the ids resent.
 */
export async function requeueForResend(
  sql: Queryable,
  input: ResendSelection & { maxResends: number; now: Date },
): Promise<string[]> {
  const selection =
    'deliveryId' in input
      ? sql`id = ${input.deliveryId}::uuid and status in ('succeeded', 'failed', 'cancelled')`
      : sql`endpoint_id = ${input.endpointId}::uuid and status = 'failed' and created_at >= ${input.since}`;
  const rows = await sql<{ id: string }[]>`
    update webhook_deliveries
       set status = 'pending', next_attempt_at = ${input.now}, max_attempts = attempt_count + 1,
           resend_count = resend_count + 1, failure_reason = null, finished_at = null, updated_at = ${input.now}
     where ${selection} and resend_count < ${input.maxResends}
    returning id`;
  return rows.map((row) => row.id);
}
