import type { Fragment, Queryable } from '../../db/connect.js';

/**
 * The one writer of a delivery-log row (docs/delivery-log.md): an INSERT of every row of the CTE
 * named `source`, whose rows carry the delivery's columns and how it ended: end_status,
 * attempt_count (the attempts recorded, this one included), end_reason (failure_reason), ended_at
 * (updated_at and finished_at) and last_response_status. Every way a delivery ends comes here:
 * through finishDeliveries below (delivered, failed for good, cancelled) or, for a delivery
 * refused because its endpoint's queue is full, which never opens, from its fan-out
 * (insertDeliveries.ts). The caller may add `on conflict` and `returning`.
 */
export function insertLogRows(sql: Queryable, source: string): Fragment {
  return sql`
    insert into webhook_delivery_log
      (id, message_id, endpoint_id, workspace_id, event_type, offer_id, is_test, status, attempt_count, max_attempts,
       next_attempt_at, resend_count, failure_reason, created_at, updated_at, finished_at, last_response_status)
    select e.id, e.message_id, e.endpoint_id, e.workspace_id, e.event_type, e.offer_id, e.is_test, e.end_status, e.attempt_count,
           e.max_attempts, e.next_attempt_at, e.resend_count, e.end_reason, e.created_at, e.ended_at, e.ended_at, e.last_response_status
      from ${sql(source)} e`;
}

/**
 * Moves deliveries from the queue to the log, whatever ended them: CTEs for a WITH list. `ending`
 * selects one row per delivery to end: id, lease_token (null: whoever holds it, as a pause or a
 * removal cancels; else only while this claim holds it, status sending with that token),
 * end_status, attempts_added (1 when an attempt ends it, else 0), end_reason, ended_at,
 * last_response_status. Defines `<name>_ending`, `<name>_rows` (the queue rows taken, as
 * insertLogRows reads them) and `<name>`, the log rows written (id, endpoint_id, finished_at).
 * A delivery no longer in the queue, or held under another lease, is left as it is.
 */
export function finishDeliveries(sql: Queryable, input: { name: string; ending: Fragment }): Fragment {
  const { name } = input;
  return sql`
    ${sql(`${name}_ending`)} as (
      ${input.ending}
    ),
    ${sql(`${name}_rows`)} as (
      delete from webhook_queue d
       using ${sql(`${name}_ending`)} x
       where d.id = x.id
         and (x.lease_token is null or (d.status = 'sending' and d.lease_token = x.lease_token))
      returning d.id, d.message_id, d.endpoint_id, d.workspace_id, d.event_type, d.offer_id, d.is_test,
                x.end_status, d.attempt_count + x.attempts_added as attempt_count, d.max_attempts, d.next_attempt_at,
                d.resend_count, x.end_reason, d.created_at, x.ended_at, x.last_response_status
    ),
    ${sql(name)} as (
      ${insertLogRows(sql, `${name}_rows`)}
      returning id, endpoint_id, finished_at
    )`;
}
