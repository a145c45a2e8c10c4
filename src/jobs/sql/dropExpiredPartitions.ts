import type { Sql } from '../../db/connect.js';
import { withPartitionLockTimeout } from './withPartitionLockTimeout.js';

/** The partitioned tables of the delivery log and their partition keys (migration 0020). */
const LOG_TABLES = ['webhook_delivery_log', 'webhook_attempts'] as const;

/**
 * docs/delivery-log.md "Retention": delivery log retention 30 days. Drops every partition of the delivery
 * log and of the attempts whose whole range ended at or before `before` (a day's, or the legacy
 * one of the rows older than the partitioning), each in a statement of its own: dropping a day
 * costs the same whatever it holds (waiting at most LOG_PARTITION_LOCK_TIMEOUT_MS for the
 * parent's lock). Returns the partitions dropped.
 */
export async function dropExpiredPartitions(sql: Sql, input: { before: Date }): Promise<number> {
  const expired = await sql<{ name: string }[]>`
    select p.name
      from unnest(${[...LOG_TABLES]}::text[]) as t(parent)
     cross join lateral webhook_log_partitions(t.parent::regclass) p
     where p.upper_bound <= ${input.before}
     order by p.upper_bound, p.name`;
  for (const { name } of expired) {
    await withPartitionLockTimeout(sql, async (tx) => {
      await tx`drop table if exists ${sql(name)}`;
    });
  }
  return expired.length;
}
