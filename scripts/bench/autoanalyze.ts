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
 * A stand-in for autovacuum's ANALYZE when the server runs with `autovacuum = off`: without statistics the
 * worker's claims keep plans made for empty tables (20 ms became 3 s). Production keeps autovacuum on.
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
