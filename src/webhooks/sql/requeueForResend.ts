import type { Queryable } from '../../db/connect.js';
import { resendLeft } from './resendLeft.js';

/** Which deliveries a resend takes: one finished delivery, or an endpoint's failed ones since a time. */
export type ResendSelection = { deliveryId: string } | { endpointId: string; since: Date };

/**
 * The one resend statement (openapi.yaml "Webhook delivery and retries": a delivery "can be resent from the
 * delivery log up to 5 times; a resend has the same webhook-id and body"). A resend is one more
 * attempt, due now, of the same stored message: max_attempts becomes the attempts made so far plus
 * one. Only a finished delivery with a resend left is taken: one delivery in any finished status,
 * or every failed delivery of an endpoint created at or after `since`. Each moves from the
 * delivery log back into webhook_queue with its id, message (webhook-id) and counts, in one
 * statement; its log row is written again when it ends. The caller holds the row lock (the
 * delivery's log row, or the endpoint's for a batch) and has checked the endpoint's room for open
 * deliveries. Returns the ids resent.
 */
export async function requeueForResend(
  sql: Queryable,
  input: ResendSelection & { now: Date },
): Promise<string[]> {
  const selection =
    'deliveryId' in input
      ? sql`id = ${input.deliveryId}::uuid`
      : sql`endpoint_id = ${input.endpointId}::uuid and status = 'failed' and created_at >= ${input.since}`;
  const rows = await sql<{ id: string }[]>`
    with reopened as (
      delete from webhook_delivery_log
       where ${selection} and ${resendLeft(sql)}
      returning *
    )
    insert into webhook_queue
      (id, message_id, endpoint_id, workspace_id, event_type, offer_id, is_test, status, attempt_count, max_attempts,
       next_attempt_at, resend_count, created_at, updated_at)
    select r.id, r.message_id, r.endpoint_id, r.workspace_id, r.event_type, r.offer_id, r.is_test, 'pending', r.attempt_count,
           r.attempt_count + 1, ${input.now}, r.resend_count + 1, r.created_at, ${input.now}
      from reopened r
    returning id`;
  return rows.map((row) => row.id);
}
