import type { Fragment, Sql } from '../../src/db/connect.js';

/**
 * Test setup that moves deliveries as the engine would: open ones live in webhook_queue, finished
 * ones in webhook_delivery_log (migration 0019). `where` is a condition on the source table `d`.
 */

/** Ends the open deliveries `where` selects with `status`, finished at `at`. */
export async function finishOpenDeliveries(
  sql: Sql,
  where: Fragment,
  input: { status: 'succeeded' | 'failed' | 'cancelled'; at: Date },
): Promise<number> {
  const rows = await sql`
    with ended as (delete from webhook_queue d where ${where} returning d.*)
    insert into webhook_delivery_log
      (id, message_id, endpoint_id, workspace_id, event_type, is_test, status, attempt_count, max_attempts,
       next_attempt_at, resend_count, created_at, updated_at, finished_at)
    select e.id, e.message_id, e.endpoint_id, e.workspace_id, e.event_type, e.is_test, ${input.status}, e.attempt_count,
           e.max_attempts, e.next_attempt_at, e.resend_count, e.created_at, ${input.at}, ${input.at}
      from ended e
    returning id`;
  return rows.length;
}

/** Opens the finished deliveries `where` selects again: pending, due at their creation. */
export async function reopenDeliveries(sql: Sql, where: Fragment): Promise<number> {
  const rows = await sql`
    with reopened as (delete from webhook_delivery_log d where ${where} returning d.*)
    insert into webhook_queue
      (id, message_id, endpoint_id, workspace_id, event_type, is_test, status, attempt_count, max_attempts,
       next_attempt_at, resend_count, created_at, updated_at)
    select r.id, r.message_id, r.endpoint_id, r.workspace_id, r.event_type, r.is_test, 'pending', r.attempt_count,
           r.max_attempts, r.created_at, r.resend_count, r.created_at, r.updated_at
      from reopened r
    returning id`;
  return rows.length;
}
