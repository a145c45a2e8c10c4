import type { PeriodicJob } from '../../jobs/jobs.js';
import type { EngineDeps } from './deps.js';
import { metricsSnapshotJob } from './metrics-snapshot-job.js';
import { checkEndpointHealth } from './notices.js';
import { HEALTH_JOB_INTERVAL_MS } from './policy.js';

/**
 * Endpoint health (health.ts): an endpoint starting to fail (no success for an hour while several
 * attempts failed) or recovering after a notice is told to its owners and admins.
 */
export function endpointHealthJob(deps: Pick<EngineDeps, 'publicUrl'>): PeriodicJob {
  return {
    name: 'endpoint-health',
    intervalMs: HEALTH_JOB_INTERVAL_MS,
    run: ({ sql, clock }) => checkEndpointHealth({ sql, now: clock.now(), publicUrl: deps.publicUrl }),
    log: 'when-busy',
  };
}

/** The webhook engine's periodic jobs, run beside the product's (src/jobs/) by the same worker. */
export function webhookJobs(deps: Pick<EngineDeps, 'publicUrl'>): PeriodicJob[] {
  return [endpointHealthJob(deps), metricsSnapshotJob];
}
