import { randomInt } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { connect, type Sql } from '../../db/connect.js';
import { coerceError, type Logger } from '../../log.js';
import { handBackClaims } from '../sql/handBackClaims.js';

/**
 * First key of the two-key advisory locks that mark live workers; the second key is the
 * worker's id. A constant: every process must look for the same locks (pg_locks shows it as
 * `classid`, the worker id as `objid`, `objsubid` 2 for the two-key form).
 */
export const WORKER_LOCK_CLASS = 0x0ffe_d35c;
const MAX_WORKER_ID = 2 ** 31 - 1;
/** Seconds a stopping worker waits for its liveness session to close. */
const SESSION_END_TIMEOUT_S = 2;

/**
 * This worker's mark of being alive: a session-level advisory lock on a session of its own,
 * held while it runs. PostgreSQL drops the lock when the session ends, which it does at once when
 * the process dies (kill -9 closes its sockets), so other workers see the death immediately in
 * pg_locks and take over its claims (src/webhooks/sql/claimDeliveries.ts) instead of waiting for
 * their leases.
 */
export interface WorkerLiveness {
  /** The id to write on claims, or null while no lock is held (claims then rely on the lease). */
  readonly workerId: number | null;
  /**
   * Makes sure the lock is still held (a terminated session loses it): checked before every
   * claim; on loss, a new id on a new session. Never throws: without a lock claims still work.
   */
  ensure(): Promise<number | null>;
  /** Graceful stop: gives back the claims still held (pending again at once), then the lock. */
  release(): Promise<number>;
}

/**
 * `databaseUrl` opens the liveness session: a pool of one connection, so every statement runs in
 * the session that holds the lock, and a terminated session is replaced on the next statement
 * (which then finds the lock gone and takes a new id). Without a URL there is no liveness and
 * claims recover by their lease alone.
 */
export async function holdWorkerLiveness(options: {
  sql: Sql;
  databaseUrl: string | undefined;
  clock: Clock;
  logger: Logger;
}): Promise<WorkerLiveness> {
  const { sql, clock, logger } = options;
  const session = options.databaseUrl ? connect(options.databaseUrl, { max: 1, applicationName: 'offerdesk-worker-liveness' }) : null;
  let workerId: number | null = null;

  async function acquire(): Promise<void> {
    if (!session) return;
    for (;;) {
      const candidate = randomInt(1, MAX_WORKER_ID);
      const [row] = await session<{ locked: boolean }[]>`
        select pg_try_advisory_lock(${WORKER_LOCK_CLASS}::int, ${candidate}::int) as locked`;
      if (row!.locked) {
        workerId = candidate;
        return;
      }
    }
  }

  async function stillHeld(): Promise<boolean> {
    if (!session || workerId === null) return false;
    const [row] = await session<{ held: boolean }[]>`
      select exists (
        select 1 from pg_locks
         where locktype = 'advisory' and pid = pg_backend_pid() and granted and objsubid = 2
           and classid::bigint = ${WORKER_LOCK_CLASS} and objid::bigint = ${workerId}) as held`;
    return row!.held;
  }

  async function takeNew(): Promise<void> {
    const lost = workerId;
    workerId = null;
    try {
      await acquire();
      if (lost !== null) logger.warn({ lost, workerId }, 'worker liveness lock was lost (session ended); holding a new one');
    } catch (thrown) {
      logger.warn({ err: coerceError(thrown) }, 'cannot hold the worker liveness lock; claims of this worker recover by lease only');
    }
  }

  await takeNew();

  return {
    get workerId() {
      return workerId;
    },
    async ensure() {
      if (!session) return null;
      // A terminated session fails its next statement once; the pool then opens a new one.
      for (let tries = 0; tries < 2; tries++) {
        try {
          if (await stillHeld()) return workerId;
          break;
        } catch {
          // try again on a new session
        }
      }
      await takeNew();
      return workerId;
    },
    async release() {
      let handedBack = 0;
      if (workerId !== null) {
        try {
          handedBack = await handBackClaims(sql, { workerId, now: clock.now() });
        } catch (thrown) {
          logger.warn({ err: coerceError(thrown) }, 'could not hand back claims at stop; their leases end them');
        }
      }
      workerId = null;
      // Ending the session releases the lock.
      await session?.end({ timeout: SESSION_END_TIMEOUT_S }).catch(() => {});
      return handedBack;
    },
  };
}
