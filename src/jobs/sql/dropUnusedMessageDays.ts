import type { Sql } from '../../db/connect.js';
import { withPartitionLockTimeout } from './withPartitionLockTimeout.js';

/**
 * docs/delivery-log.md "Retention": delivery log retention 30 days, for the messages the log's rows are
 * sent with. Drops every daily (or the legacy) partition of webhook_messages (migration 0032)
 * whose whole range ended at or before `before` and to which nothing refers any more: no open
 * delivery and no log row still kept was created in its range (a delivery's created_at is its
 * message's). Each day goes in a transaction of its own that first takes webhook_messages
 * exclusively (waiting at most LOG_PARTITION_LOCK_TIMEOUT_MS), so no claim, resend or fan-out is
 * between the check and the drop; a day still referred to is kept whole and checked again on the
 * next run (docs/delivery-log.md "Retention"). Call it after the log's expired partitions are
 * dropped: then the rows that still refer to an old day are
 * - open deliveries (a retry still due, a resend waiting): a read of the whole queue, which no
 *   index of created_at serves (the claim's writes pay for every index of the queue, migration 0036);
 * - log rows that ended on a later UTC day (retried across midnight, resent later): the
 *   day-crossing index of every log partition (migration 0031);
 * - log rows that ended on that day, in a partition not dropped yet (the default one, or a drop
 *   that timed out): the partitions covering that day only.
 * Each is a few index probes, whatever the day holds, beside the queue's open rows. Returns the
 * partitions dropped.
 */
export async function dropUnusedMessageDays(sql: Sql, input: { before: Date }): Promise<number> {
  const expired = await sql<{ name: string; lower_bound: Date | null; upper_bound: Date }[]>`
    select p.name, p.lower_bound, p.upper_bound
      from webhook_log_partitions('webhook_messages'::regclass) p
     where p.upper_bound <= ${input.before}
     order by p.upper_bound, p.name`;
  let dropped = 0;
  for (const day of expired) {
    const from = day.lower_bound ? sql`d.created_at >= ${day.lower_bound} and` : sql``;
    const finishedFrom = day.lower_bound ? sql`d.finished_at >= ${day.lower_bound} and` : sql``;
    const gone = await withPartitionLockTimeout(sql, async (tx) => {
      await tx`lock table webhook_messages in access exclusive mode`;
      const [row] = await tx<{ used: boolean }[]>`
        select exists (select 1 from webhook_queue d where ${from} d.created_at < ${day.upper_bound})
            or exists (select 1 from webhook_delivery_log d
                        where ${from} d.created_at < ${day.upper_bound}
                          and (d.created_at at time zone 'UTC')::date <> (d.finished_at at time zone 'UTC')::date)
            or exists (select 1 from webhook_delivery_log d
                        where ${finishedFrom} d.finished_at < ${day.upper_bound}
                          and ${from} d.created_at < ${day.upper_bound}) as used`;
      if (row!.used) return false;
      await tx`drop table ${sql(day.name)}`;
      return true;
    });
    if (gone) dropped += 1;
  }
  return dropped;
}
