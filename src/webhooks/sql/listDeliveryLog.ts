import type { Fragment, Queryable } from '../../db/connect.js';
import type { DeliveryStatus } from '../delivery.js';

/** One row of the console's delivery log, with what the waiting reason needs. */
export interface LogRow {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  endpoint_url: string;
  /** The webhook-id. */
  message_id: string;
  type: string;
  offer_id: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  max_attempts: number;
  resend_count: number;
  is_test: boolean;
  failure_reason: string | null;
  next_attempt_at: Date | null;
  lease_until: Date | null;
  created_at: Date;
  /** created_at as exact text: the keyset position of the cursor. */
  created_at_key: string;
  last_response_status: number | null;
}

export interface LogFilter {
  workspaceId: string;
  status: DeliveryStatus | null;
  eventType: string | null;
  endpointId: string | null;
  /** Created at or after. */
  since: Date | null;
  /** Created before. */
  until: Date | null;
  /** A webhook-id or an offer id (exact UUID). */
  q: string | null;
  /** One delivery (the detail page). */
  deliveryId?: string | null;
}

/**
 * One page of a workspace's delivery log, newest first, after the keyset position `after`.
 *
 * Every filter is a plain equality or range on webhook_deliveries (the view of the open
 * deliveries and the daily partitions of the log, migrations 0019 and 0020), so the planner walks
 * one of the log's list indexes of migration 0011 in (created_at desc, id desc) order in each,
 * merges them with the open deliveries (pageRows) and stops after `limit` rows: status, event type and endpoint each have an index with
 * that order, and since/until are a range inside it. `q` names few messages (one webhook-id, or the events of one offer), read
 * through webhook_messages_offer_idx and the (message_id, endpoint_id) key; that small set is
 * sorted (the messages are partitioned by day, migration 0032, so `q` probes each day's index).
 * The endpoint's URL is read for the page only; a finished row carries its offer and last response
 * status (migration 0033), an open or older one reads them for the page only.
 */
export async function listDeliveryLog(
  sql: Queryable,
  input: LogFilter & { after: { createdAt: string; id: string } | null; limit: number },
): Promise<LogRow[]> {
  return sql<LogRow[]>`
    select d.id, d.workspace_id, d.endpoint_id, e.url as endpoint_url, d.message_id, d.event_type as type,
           -- Written on the row when its delivery ended (migration 0033); else read where it lives:
           -- the message, found by id and created_at in one day's partition, and the last attempt,
           -- in the days the delivery lived (a day's margin for the clocks of several hosts). A
           -- subquery in coalesce runs only for a row whose own column is null.
           coalesce(d.offer_id, (select m.offer_id from webhook_messages m
                                  where m.id = d.message_id and m.created_at = d.created_at limit 1)) as offer_id,
           d.status, d.attempt_count, d.max_attempts, d.resend_count, d.is_test, d.failure_reason,
           d.next_attempt_at, d.lease_until, d.created_at, d.created_at::text as created_at_key,
           coalesce(d.last_response_status,
                    (select a.status_code from webhook_attempts a
                      where a.delivery_id = d.id
                        and a.attempted_at >= d.created_at - interval '1 day'
                        and a.attempted_at < coalesce(d.finished_at, 'infinity') + interval '1 day'
                      order by a.id desc limit 1)) as last_response_status
      from ${pageRows(sql, input)} d
      join webhook_endpoints e on e.id = d.endpoint_id
     order by d.created_at desc, d.id desc`;
}

/**
 * The page's rows of webhook_deliveries, newest first (shared with the EXPLAIN tests): the open
 * deliveries and the finished ones each limited to the page on their own side, then merged. The
 * queue keeps no list index (migration 0036: each would cost the worker an entry per delivery),
 * so its side is the workspace's open deliveries, at most 5 x 1,000 (docs/delivery-log.md), read
 * through webhook_queue_workspace_due_idx and sorted; limited apart, that sort can never make the
 * planner sort the log's side, which walks its list index in order and stops after the page. The
 * status conditions only name each side: the CHECK constraints of migration 0019 leave the other
 * side out.
 */
export function pageRows(sql: Queryable, input: LogFilter & { after: { createdAt: string; id: string } | null; limit: number }) {
  const side = (statuses: Fragment) => sql`
    (select d.*
       from webhook_deliveries d
      where ${logConditions(sql, input)} and ${statuses}
        ${input.after ? sql`and (d.created_at, d.id) < (${input.after.createdAt}::timestamptz, ${input.after.id}::uuid)` : sql``}
      order by d.created_at desc, d.id desc
      limit ${input.limit})`;
  // A parenthesized subquery: used as `from ${pageRows(...)} d`.
  return sql`(
    select d.*
      from (${side(sql`d.status in ('pending', 'sending')`)}
            union all
            ${side(sql`d.status in ('succeeded', 'failed', 'cancelled')`)}) d
     order by d.created_at desc, d.id desc
     limit ${input.limit})`;
}

/** The filter as SQL conditions on `webhook_deliveries d` (shared with the EXPLAIN tests). */
export function logConditions(sql: Queryable, f: LogFilter) {
  return sql`d.workspace_id = ${f.workspaceId}::uuid
    ${f.deliveryId ? sql`and d.id = ${f.deliveryId}::uuid` : sql``}
    ${f.status === null ? sql`` : sql`and d.status = ${f.status}`}
    ${f.eventType === null ? sql`` : sql`and d.event_type = ${f.eventType}`}
    ${f.endpointId === null ? sql`` : sql`and d.endpoint_id = ${f.endpointId}::uuid`}
    ${f.since === null ? sql`` : sql`and d.created_at >= ${f.since}`}
    ${f.until === null ? sql`` : sql`and d.created_at < ${f.until}`}
    ${
      f.q === null
        ? sql``
        : // An array computed first, not `in (select ...)`: over 20,000,000 rows PostgreSQL
          // planned that as a semi-join filtering the workspace's whole log in the list's order
          // (seconds a page); the array's few ids are looked up by each day's message key.
          sql`and d.message_id = any (array(select q.id from webhook_messages q
                                             where q.workspace_id = ${f.workspaceId}::uuid
                                               and (q.id = ${f.q}::uuid or q.offer_id = ${f.q}::uuid)))`
    }`;
}
