import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import { coerceError, type Logger } from '../log.js';
import { readQueueSnapshotWith } from '../telemetry/metrics-queue.js';
import { startMetricsListener, type MetricsListener } from '../telemetry/metrics-server.js';
import { readMetricsSnapshot } from '../webhooks/sql/readMetricsSnapshot.js';

/**
 * The metrics of `serve` and `worker` (docs/operations.md "Metrics"): the queue's gauges read from
 * the stored snapshot, and GET /metrics on its own listener. `port` (`--metrics-port`) overrides
 * OFFERDESK_METRICS_PORT and counts as chosen; 0 turns the listener off.
 */
export async function serveMetrics(input: { config: Config; sql: Sql; logger: Logger; port?: number }): Promise<MetricsListener | undefined> {
  const { config, sql, logger } = input;
  readQueueSnapshotWith(
    () => readMetricsSnapshot(sql),
    (error) => logger.warn({ err: coerceError(error) }, 'reading the queue snapshot for /metrics failed'),
  );
  const settings =
    input.port === undefined ? config.metrics : { port: input.port, portChosen: true };
  return startMetricsListener({ ...settings, host: config.host }, logger);
}
