import type { Queryable } from '../../db/connect.js';

/**
 * SPEC.md "Webhook limits": delivery log retention 30 days, for the rows of the default
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

/**
 * Up to `limit` messages made before the cutoff that no open or finished delivery refers to any
 * more (one index probe of the queue and of each log partition per message). Returns how many.
 */
export async function deleteUnusedMessages(sql: Queryable, input: { before: Date; limit: number }): Promise<number> {
  const rows = await sql`
    delete from webhook_messages m
     where m.id in (
       select m2.id from webhook_messages m2
        where m2.created_at < ${input.before}
          and not exists (select 1 from webhook_queue q where q.message_id = m2.id)
          and not exists (select 1 from webhook_delivery_log d where d.message_id = m2.id)
        limit ${input.limit})
    returning m.id`;
  return rows.length;
}
