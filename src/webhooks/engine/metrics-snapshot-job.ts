import type { EngineDeps } from './deps.js';
import { writeMetricsSnapshot } from '../sql/writeMetricsSnapshot.js';

/**
 * How often the queue is measured for the metrics: a quarter of a minute keeps the queue's gauges
 * (and the alerts on them, deploy/prometheus/rules.yml) within one Prometheus evaluation of the
 * truth, and costs one counting statement per period for the whole fleet.
 */
export const METRICS_SNAPSHOT_INTERVAL_MS = 15_000;

/**
 * The queue's gauges (docs/operations.md "Metrics"): one worker of the fleet per period measures
 * the queue (worker_jobs decides which), and every process's /metrics reads the stored row.
 */
export const metricsSnapshotJob = {
  name: 'metrics-snapshot',
  intervalMs: METRICS_SNAPSHOT_INTERVAL_MS,
  // Routine, every 15 s on some worker: its failures are logged, its runs are not.
  log: 'never' as const,
  async run({ sql, clock }: Pick<EngineDeps, 'sql' | 'clock'>): Promise<number> {
    await writeMetricsSnapshot(sql, { now: clock.now() });
    return 1;
  },
};
