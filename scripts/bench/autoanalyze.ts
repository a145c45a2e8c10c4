import type { Sql } from '../../src/db/connect.js';

/** The tables the webhook engine's statements plan over, which grow and shrink during a run. */
const WEBHOOK_TABLES = ['webhook_outbox', 'webhook_messages', 'webhook_queue', 'webhook_delivery_log', 'webhook_attempts', 'webhook_workspace_state', 'webhook_endpoints'];

/** About as often as autovacuum's default naptime (1 min) would reach a table changing this fast. */
const INTERVAL_MS = 5_000;

/** ANALYZE of the webhook tables now (a phase that writes a large state at once calls it). */
export async function analyzeWebhookTables(sql: Sql): Promise<void> {
  await sql.unsafe(`analyze ${WEBHOOK_TABLES.join(', ')}`);
}

/**
 * A stand-in for autovacuum's ANALYZE, started only when the server runs with `autovacuum = off`
 * (this machine's PostgreSQL service does). Without any ANALYZE the planner never learns that
 * webhook_deliveries went from empty to 200,000 rows, the worker's prepared statements keep the
 * plans they got when it was empty, and a claim that takes 20 ms with statistics took 3 s (seen
 * in a full run with `log_min_duration_statement`). A service in production keeps autovacuum on
 * (README "Running in production"); the benchmark measures the engine, not a missing autovacuum.
 */
export function startAutoanalyzeStandIn(sql: Sql, autovacuum: string, log: (line: string) => void): () => Promise<void> {
  if (autovacuum !== 'off') return async () => {};
  log(`autovacuum is off on this server: the bench runs ANALYZE on the webhook tables every ${INTERVAL_MS / 1000} s, as autovacuum would`);
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => analyzeWebhookTables(sql))
      .catch((error: unknown) => log(`bench: ANALYZE failed: ${(error as Error).message}`));
  }, INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
