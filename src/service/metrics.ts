import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import { coerceError, type Logger } from '../log.js';
import { readQueueSnapshotWith } from '../telemetry/metrics-queue.js';
import { startMetricsListener } from '../telemetry/metrics-server.js';
import { readMetricsSnapshot } from '../webhooks/sql/readMetricsSnapshot.js';

export interface RunningMetrics {
  /** Where GET /metrics is served; undefined when it is off (or the default port was taken). */
  port: number | undefined;
  close(): Promise<void>;
}

/**
 * The metrics of `serve` and `worker` (docs/operations.md "Metrics"): the queue's gauges read from
 * the stored snapshot, GET /metrics on its own listener, and OTLP export of the same registry when
 * an OTLP endpoint is configured. `port` (`--metrics-port`) overrides OFFERDESK_METRICS_PORT and
 * counts as chosen; 0 turns the listener off.
 */
export async function serveMetrics(input: { config: Config; sql: Sql; logger: Logger; port?: number }): Promise<RunningMetrics> {
  const { config, sql, logger } = input;
  readQueueSnapshotWith(
    () => readMetricsSnapshot(sql),
    (error) => logger.warn({ err: coerceError(error) }, 'reading the queue snapshot for /metrics failed'),
  );
  const settings = input.port === undefined ? config.metrics : { ...config.metrics, port: input.port, portChosen: true };
  const listener = await startMetricsListener({ ...settings, host: config.host }, logger);
  // The OTLP exporter is loaded only when an endpoint is configured: without one, no
  // OpenTelemetry module is loaded at all (docs/operations.md "Tracing" says the same of traces).
  const otlp = config.metrics.otlp
    ? (await import('../telemetry/metrics-otlp.js')).startOtlpMetrics(config.metrics.otlp, logger)
    : undefined;
  return {
    port: listener?.port,
    async close() {
      await listener?.close();
      await otlp?.close();
    },
  };
}
