import type { Request, Response } from 'express';
import type { ReadinessConfig } from '../config.js';
import type { Sql } from '../db/connect.js';
import { coerceError, type Logger } from '../log.js';
import type { RateLimits } from '../api/admission/rate-limits.js';
import { sendJson } from '../http/respond.js';
import { markReadiness } from '../telemetry/metrics.js';
import type { WorkerProgress } from '../host/worker.js';

/**
 * Every probe answers within this, whatever the dependency does: a load balancer's or
 * Kubernetes' probe must get an answer, and a probe that waits is itself an outage.
 */
export const PROBE_DEADLINE_MS = 500;

export type { WorkerProgress };

export interface ReadinessSources {
  sql: Sql;
  limits: RateLimits;
  config: ReadinessConfig;
  logger: Logger;
  /** The worker of this process, looked up per request (it starts after the HTTP app). */
  worker: () => WorkerProgress | undefined;
}

type Verdict = 'ok' | 'unavailable' | 'timeout';

/** The probe's verdict ('unavailable' when it throws), or 'timeout' after PROBE_DEADLINE_MS. */
async function withinDeadline<T extends string>(probe: () => Promise<T>): Promise<T | 'unavailable' | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), PROBE_DEADLINE_MS);
  });
  try {
    return await Promise.race([probe().catch(() => 'unavailable' as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** `select 1` within the deadline; a query still waiting then is cancelled. */
export async function probePostgres(sql: Sql, logger: Logger): Promise<Verdict> {
  const query = sql`select 1`;
  const verdict = await withinDeadline(async () => {
    await query;
    return 'ok' as const;
  });
  if (verdict === 'timeout') query.cancel();
  if (verdict !== 'ok') logger.warn({ verdict }, 'PostgreSQL probe failed');
  return verdict;
}

/**
 * GET /readyz: may this process take traffic? 503 when PostgreSQL does not answer within the
 * deadline or the in-process worker's last claim round is older than READY_WORKER_STALE_SECONDS;
 * 200 otherwise. An unavailable Redis is reported but keeps the process ready: the in-memory
 * limiter enforces the limits per process meanwhile, and taking every instance out of the load
 * balancer over a Redis outage would turn a degraded limit into a full outage.
 */
export function readinessHandler(sources: ReadinessSources) {
  return async (_req: Request, res: Response) => {
    try {
      const [postgres, redis] = await Promise.all([
        probePostgres(sources.sql, sources.logger),
        withinDeadline(() => sources.limits.probeStore()),
      ]);
      const worker = workerCheck(sources);
      const ready = postgres === 'ok' && worker.status !== 'stale';
      markReadiness(ready);
      sendJson(res, ready ? 200 : 503, {
        status: ready ? (redis === 'ok' || redis === 'not_configured' ? 'ready' : 'degraded') : 'not_ready',
        checks: { postgres: { status: postgres }, redis: { status: redis }, worker },
      });
    } catch (error) {
      sources.logger.error({ err: coerceError(error) }, 'readiness check failed');
      markReadiness(false);
      sendJson(res, 503, { status: 'not_ready' });
    }
  };
}

function workerCheck(sources: ReadinessSources) {
  const worker = sources.worker();
  if (!worker) return { status: 'not_running' as const };
  const now = Date.now();
  const last = worker.lastRoundAt();
  const ageMs = now - (last ?? worker.startedAt);
  return {
    status: ageMs > sources.config.workerStaleAfterMs ? ('stale' as const) : ('ok' as const),
    last_claim_round_at: last === undefined ? null : new Date(last).toISOString(),
    stale_after_seconds: sources.config.workerStaleAfterMs / 1000,
  };
}
