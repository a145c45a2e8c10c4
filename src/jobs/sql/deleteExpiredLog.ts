import type { Queryable } from '../../db/connect.js';

/**
 * docs/delivery-log.md "Retention": delivery log retention 30 days, for the rows of the default
 * partitions (a day that had no partition of its own when they were written: migration 0020).
 * Deletes up to `limit` finished deliveries that ended before the cutoff and up to `limit`
 * attempts made before it. Returns the rows deleted; the caller repeats while it is full.
 * Every other row goes with its day's partition (dropExpiredPartitions.ts).
 */
export async function deleteExpiredLog(sql: Queryable, input: { before: Date; limit: number }): Promise<number> {
  const [row] = await sql<{ deleted: number }[]>`
    with old_deliveries as (
      delete from webhook_delivery_log_default d
       where d.ctid = any (array(select o.ctid from webhook_delivery_log_default o
                                  where o.finished_at < ${input.before} limit ${input.limit}))
      returning 1
    ),
    old_attempts as (
      delete from webhook_attempts_default a
       where a.ctid = any (array(select o.ctid from webhook_attempts_default o
                                  where o.attempted_at < ${input.before} limit ${input.limit}))
      returning 1
    )
    select greatest((select count(*) from old_deliveries), (select count(*) from old_attempts))::int as deleted`;
  return row!.deleted;
}

/** Where a batch of the message cleanup ended: the next batch starts after this message. */
export interface MessageCursor {
  createdAt: Date;
  id: string;
}

/**
 * The message partitions whose rows retention deletes one by one (migration 0032): the default one
 * (days that had no partition of their own) and the legacy one (the rows older than the
 * partitioning). Every daily partition goes whole (dropUnusedMessageDays.ts). `webhook_messages`,
 * all of them, is what a caller gets without choosing.
 */
export type MessageRowsTable = 'webhook_messages' | 'webhook_messages_default' | 'webhook_messages_legacy';

/**
 * The next `limit` messages of `from` (every partition unless told) made before `before`,
 * after `after` in (created_at, id) order; deletes those no open or finished delivery refers to any more. Returns how many it looked at and
 * deleted, and where it stopped; the caller goes on while a batch is full.
 *
 * Which log rows can still refer to a message (migration 0031): a delivery's created_at is its
 * message's. A row that ended on its message's UTC day lives in the partitions covering that day,
 * probed per message with that day's bounds, so run-time pruning reads one partition's index (none
 * once the day is dropped, but the default one's); a row that ended on a later day (retried
 * across midnight, resent later) is in the small day-crossing index, read once per batch over the
 * batch's created_at range. The queue is probed per message by its (message, endpoint) key. So a
 * batch costs about its own messages, not messages x partitions.
 *
 * No row can come to refer to an old message: a new delivery gets a new message, and a resend or
 * an ending moves a row between the queue and the log in one statement, which this one's snapshot
 * sees either side of, so it finds the row in one place or the other.
 */
export async function deleteUnusedMessages(
  sql: Queryable,
  input: { before: Date; after: MessageCursor | null; limit: number; from?: MessageRowsTable },
): Promise<{ examined: number; deleted: number; last: MessageCursor | null }> {
  const from = sql(input.from ?? 'webhook_messages');
  const after = input.after ? sql`and (m.created_at, m.id) > (${input.after.createdAt}, ${input.after.id}::uuid)` : sql``;
  const [row] = await sql<{ examined: number; deleted: number; last_created_at: Date | null; last_id: string | null }[]>`
    with batch as materialized (
      select m.id, m.created_at, date_trunc('day', m.created_at, 'UTC') as day_start
        from ${from} m
       where m.created_at < ${input.before} ${after}
       order by m.created_at, m.id
       limit ${input.limit}
    ),
    crossing as materialized (
      select d.message_id
        from webhook_delivery_log d
       where (d.created_at at time zone 'UTC')::date <> (d.finished_at at time zone 'UTC')::date
         and d.created_at >= (select min(b.created_at) from batch b)
         and d.created_at <= (select max(b.created_at) from batch b)
    ),
    unused as (
      select b.id
        from batch b
       where not exists (select 1 from webhook_queue q where q.message_id = b.id)
         and not exists (select 1 from webhook_delivery_log d
                          where d.message_id = b.id
                            and d.finished_at >= b.day_start and d.finished_at < b.day_start + interval '24 hours')
         and not exists (select 1 from crossing c where c.message_id = b.id)
    ),
    deleted as (
      delete from ${from} m using unused u where m.id = u.id
      returning m.id
    ),
    last as (
      select b.created_at, b.id from batch b order by b.created_at desc, b.id desc limit 1
    )
    select (select count(*) from batch)::int as examined, (select count(*) from deleted)::int as deleted,
           (select created_at from last) as last_created_at, (select id from last) as last_id`;
  const last = row!.last_created_at && row!.last_id ? { createdAt: row!.last_created_at, id: row!.last_id } : null;
  return { examined: row!.examined, deleted: row!.deleted, last };
}
