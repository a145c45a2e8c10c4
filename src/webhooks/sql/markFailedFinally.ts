import type { Queryable } from '../../db/connect.js';

/**
 * Ends a delivery as failed after its last attempt, if this claim still holds it: out of
 * webhook_queue, its row written into webhook_delivery_log with that attempt's response status
 * (null: none came), in one statement.
 */
export async function markFailedFinally(
  sql: Queryable,
  input: { deliveryId: string; leaseToken: string; now: Date; lastResponseStatus: number | null },
): Promise<boolean> {
  const rows = await sql`
    with ended as (
      delete from webhook_queue
       where id = ${input.deliveryId}::uuid and status = 'sending' and lease_token = ${input.leaseToken}::uuid
      returning *
    )
    insert into webhook_delivery_log
      (id, message_id, endpoint_id, workspace_id, event_type, offer_id, is_test, status, attempt_count, max_attempts,
       next_attempt_at, resend_count, failure_reason, created_at, updated_at, finished_at, last_response_status)
    select e.id, e.message_id, e.endpoint_id, e.workspace_id, e.event_type, e.offer_id, e.is_test, 'failed', e.attempt_count + 1,
           e.max_attempts, e.next_attempt_at, e.resend_count, null, e.created_at, ${input.now}, ${input.now}, ${input.lastResponseStatus}::integer
      from ended e
    returning id`;
  return rows.length > 0;
}
