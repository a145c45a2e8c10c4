import type { Sql } from '../../src/db/connect.js';

/** The small tables the worker rewrites all through a run: analyzed every round. */
const HOT_TABLES = ['webhook_outbox', 'webhook_queue', 'webhook_workspace_state', 'webhook_endpoints'];

/** About as often as autovacuum's default naptime (1 min) would reach a table changing this fast. */
const INTERVAL_MS = 5_000;

/**
 * ANALYZE as autovacuum would run it now (a phase that writes a large state at once calls it too): the hot tables,
 * and any other webhook table (webhook_messages, each partition of the delivery log and of the attempts) only once
 * autovacuum's default rule picks it: more rows changed since its last ANALYZE than 50 + 10 % of its rows. Never a
 * partitioned parent, which autovacuum never analyzes: `analyze webhook_delivery_log` samples every partition and then
 * analyzes each one again, seconds of reads of a large log every round, which the worker beside the log then paid
 * and production never does. So during a run only the partitions receiving rows (today's, the default) are analyzed.
 */
export async function analyzeWebhookTables(sql: Sql): Promise<void> {
  const due = await sql<{ name: string }[]>`
    select c.oid::regclass::text as name
      from pg_class c join pg_stat_user_tables s on s.relid = c.oid
     where c.relkind = 'r' and c.relname like 'webhook\\_%'
       and (c.relname = any (${HOT_TABLES}) or s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0))`;
  if (due.length > 0) await sql.unsafe(`analyze ${due.map((t) => t.name).join(', ')}`);
}

/**
 * A stand-in for autovacuum's ANALYZE when the server runs with `autovacuum = off`: without statistics the
 * worker's claims keep plans made for empty tables (20 ms became 3 s). Production keeps autovacuum on.
 */
export function startAutoanalyzeStandIn(sql: Sql, autovacuum: string, log: (line: string) => void): () => Promise<void> {
  if (autovacuum !== 'off') return async () => {};
  log(`autovacuum is off on this server: the bench runs ANALYZE every ${INTERVAL_MS / 1000} s where autovacuum would`);
  // A round still running skips the next one: queued behind it, rounds piled up (a 2M-row log's took longer than
  // 5 s) and ran back to back beside the worker, and the end of the phase waited for all of them.
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    running ??= analyzeWebhookTables(sql)
      .catch((error: unknown) => log(`bench: ANALYZE failed: ${(error as Error).message}`))
      .finally(() => (running = null));
  }, INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
