import type { Sql } from '../../db/connect.js';
import { LOG_PARTITION_LOCK_TIMEOUT_MS } from '../policy.js';

/**
 * `work` in a transaction that waits at most LOG_PARTITION_LOCK_TIMEOUT_MS for any lock: making,
 * attaching and dropping day partitions must not queue the workers' claims behind a long wait.
 */
export function withPartitionLockTimeout<T>(sql: Sql, work: (tx: Sql) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    await tx`select set_config('lock_timeout', ${`${LOG_PARTITION_LOCK_TIMEOUT_MS}ms`}, true)`;
    return work(tx as unknown as Sql);
  }) as Promise<T>;
}
