import type { Queryable } from '../../db/connect.js';

/**
 * Resends, in one statement, every failed delivery of an endpoint created at or after `since`
 * that has a resend left: each exactly as a single resend (resendDelivery.ts) does it, one more
 * attempt due now of the same stored message, within its own limit. The caller holds the
 * endpoint's row lock and has checked the endpoint's room for open deliveries.
 */
export async function resendFailedSince(
  sql: Queryable,
  input: { endpointId: string; since: Date; maxResends: number; now: Date },
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update webhook_deliveries
       set status = 'pending', next_attempt_at = ${input.now}, max_attempts = attempt_count + 1,
           resend_count = resend_count + 1, failure_reason = null, finished_at = null, updated_at = ${input.now}
     where endpoint_id = ${input.endpointId}::uuid and status = 'failed' and created_at >= ${input.since}
       and resend_count < ${input.maxResends}
    returning id`;
  return rows.map((row) => row.id);
}
