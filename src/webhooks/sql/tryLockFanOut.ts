import { advisoryLockKey } from '../../db/advisory-lock.js';
import type { Tx } from '../../db/connect.js';

// One fan-out at a time across all workers: the per-workspace waiting count and the per-endpoint
// open count it checks then cannot be raced by another fan-out. Fan-out is short (one batch of
// outbox rows), so a worker that finds the lock taken simply skips this round.
const FANOUT_LOCK = advisoryLockKey('webhook-fanout');

/** Takes the fan-out lock for the rest of the transaction; false when another worker holds it. */
export async function tryLockFanOut(tx: Tx): Promise<boolean> {
  const [row] = await tx<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(${FANOUT_LOCK}::bigint) as locked`;
  return row!.locked;
}
