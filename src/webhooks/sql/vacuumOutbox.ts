import type { Sql } from '../../db/connect.js';

/**
 * Rows a fan-out must have dropped in one go before it vacuums the outbox itself (one flood's cut
 * is 49,000 rows for 50,000 events committed at once; a batch's own rows are 200 at most).
 */
export const VACUUM_AFTER_DROPPED_ROWS = 1_000;

/**
 * VACUUM of the outbox, right after a flood's excess was cut (dropExcessWaiting.ts). The cut
 * leaves its rows dead in the heap and in both outbox indexes, and every following fan-out's
 * takeDueOutbox walks them until they are removed. Measured in the bench's fairness run (one worker,
 * a flood of 50,000 beside 199 workspaces' 10 events): in about one run of three that statement
 * took 70 to 490 ms instead of under 40 for the next seconds, and the other workspaces' first
 * attempts came up to 2 s later; with this vacuum, no such run in six. Autovacuum gets there within its naptime (a minute);
 * this takes 6 to 40 ms once. The outbox is small between floods, so the vacuum is too.
 *
 * SKIP_LOCKED: a vacuum already running on the outbox (autovacuum, another worker) is enough, and
 * nothing waits for it. A role that does not own the table gets a notice, not an error, and the
 * outbox waits for autovacuum as before. Outside any transaction (VACUUM cannot run in one).
 */
export async function vacuumOutbox(sql: Sql): Promise<void> {
  await sql`vacuum (skip_locked) webhook_outbox`;
}
