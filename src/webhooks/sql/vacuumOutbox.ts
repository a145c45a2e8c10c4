import type { Sql } from '../../db/connect.js';

/**
 * Rows one fan-out must have cut before it vacuums the outbox itself: a batch deletes at most its
 * own 200 rows, which autovacuum keeps up with; a flood's cut is 49,000 rows for 50,000 events.
 */
export const VACUUM_AFTER_DROPPED_ROWS = 1_000;

/**
 * VACUUM of the outbox right after a flood's excess was cut (dropExcessWaiting.ts). The cut leaves
 * its rows dead in the heap and the outbox's indexes, and every following fan-out's takeDueOutbox
 * walks them until they are removed: in the bench's fairness phase (a flood of 50,000 beside 199
 * workspaces' 10 events each) that statement then takes 70 to 490 ms instead of under 40, and the
 * 199 workspaces' first attempts' p99 goes past the 5 s bound; with this vacuum it stays at 3.0 to
 * 4.6 s. Autovacuum gets there within its naptime (a minute); this takes 6 to 40 ms, once per flood.
 *
 * SKIP_LOCKED: a vacuum already running on the outbox (autovacuum, another worker) is enough, and
 * nothing waits for it. A role that does not own the table gets a notice, not an error, and the
 * outbox waits for autovacuum. Outside any transaction (VACUUM cannot run in one).
 */
export async function vacuumOutbox(sql: Sql): Promise<void> {
  await sql`vacuum (skip_locked) webhook_outbox`;
}
