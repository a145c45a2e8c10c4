import type { Sql } from '../../src/db/connect.js';

/** The small tables the worker rewrites all through a run: analyzed every round. */
const HOT_TABLES = ['webhook_outbox', 'webhook_queue', 'webhook_workspace_state', 'webhook_endpoints'];

/** About as often as autovacuum's default naptime (1 min) would reach a table changing this fast. */
const INTERVAL_MS = 5_000;

/**
 * VACUUM and ANALYZE where autovacuum's default rules would now (phases call it too, after writing or clearing at
 * once), per webhook table (webhook_messages, each log and attempts partition): VACUUM past 50 + 20 % of its rows dead
 * (the bench clears its reused databases with DELETE, the worker deletes each finished delivery from the queue: with
 * autovacuum off, 800,000 dead rows beside the log bench's 951 queued ones, read by every claim, which production never
 * pays), ANALYZE past 50 + 10 % changed (the hot tables every round). Never a partitioned parent, which autovacuum never
 * analyzes: `analyze webhook_delivery_log` samples every partition and then each one again, seconds of reads.
 */
export async function autovacuumWebhookTables(sql: Sql, tables: 'webhook' | 'all' = 'webhook'): Promise<void> {
  const pattern = tables === 'all' ? '%' : 'webhook\\_%';
  const due = await sql<{ name: string; vacuum: boolean; analyze: boolean }[]>`
    select c.oid::regclass::text as name, s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) as vacuum,
           c.relname = any (${HOT_TABLES}) or s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) as analyze
      from pg_class c join pg_stat_user_tables s on s.relid = c.oid
     where c.relkind = 'r' and c.relname like ${pattern}`;
  for (const step of ['vacuum', 'analyze'] as const)
    if (due.some((t) => t[step])) await sql.unsafe(`${step} ${due.filter((t) => t[step]).map((t) => t.name).join(', ')}`);
}

/** Autovacuum's stand-in on a server with `autovacuum = off` (production keeps it on): unanalyzed, a claim takes 3 s, not 20 ms. */
export function startAutoanalyzeStandIn(
  sql: Sql,
  autovacuum: string,
  log: (line: string) => void,
  tables: 'webhook' | 'all' = 'webhook',
): () => Promise<void> {
  if (autovacuum !== 'off') return async () => {};
  log(`autovacuum is off on this server: VACUUM and ANALYZE run every ${INTERVAL_MS / 1000} s where autovacuum would`);
  // A round still running skips the next one: a 2M-row log's round takes longer than 5 s, and rounds queued behind
  // it would run back to back beside the worker and hold up the end of the phase.
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    running ??= autovacuumWebhookTables(sql, tables)
      .catch((error: unknown) => log(`VACUUM/ANALYZE (autovacuum's stand-in) failed: ${(error as Error).message}`))
      .finally(() => (running = null));
  }, INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
