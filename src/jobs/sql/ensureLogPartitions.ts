import type { Sql } from '../../db/connect.js';
import { withPartitionLockTimeout } from './withPartitionLockTimeout.js';

/**
 * Makes the missing daily partitions of the delivery log and the attempts for the UTC days
 * `firstDay` to `lastDay` (webhook_log_partitions_ensure, migration 0020; idempotent, and safe
 * beside another call), waiting at most LOG_PARTITION_LOCK_TIMEOUT_MS for a lock. Returns how
 * many partitions it made.
 */
export async function ensureLogPartitions(sql: Sql, input: { firstDay: Date; lastDay: Date }): Promise<number> {
  return withPartitionLockTimeout(sql, async (tx) => {
    const [row] = await tx<{ made: number }[]>`
      select webhook_log_partitions_ensure(${utcDay(input.firstDay)}::date, ${utcDay(input.lastDay)}::date) as made`;
    return row!.made;
  });
}

/** The UTC day of an instant, as PostgreSQL reads a date ('2026-01-15'). */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
