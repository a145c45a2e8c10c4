import type { Sql } from '../../db/connect.js';
import { utcDay } from './ensureLogPartitions.js';
import { withPartitionLockTimeout } from './withPartitionLockTimeout.js';

/**
 * Makes the missing daily partitions of webhook_messages for the UTC days `firstDay` to `lastDay`
 * (webhook_message_partitions_ensure, migration 0032; idempotent, and safe beside another call),
 * waiting at most LOG_PARTITION_LOCK_TIMEOUT_MS for a lock. Returns how many it made.
 */
export async function ensureMessagePartitions(sql: Sql, input: { firstDay: Date; lastDay: Date }): Promise<number> {
  return withPartitionLockTimeout(sql, async (tx) => {
    const [row] = await tx<{ made: number }[]>`
      select webhook_message_partitions_ensure(${utcDay(input.firstDay)}::date, ${utcDay(input.lastDay)}::date) as made`;
    return row!.made;
  });
}
