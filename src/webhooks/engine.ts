import type { EngineDeps } from './deps.js';
import { attemptDelivery, claimBatch } from './dispatch.js';
import { fanOutOnce, type FanOutResult } from './fanout.js';
import { runDueJobs, PERIODIC_JOBS, type PeriodicJob } from './jobs.js';
import type { DeliveryOutcome } from './outcome.js';
import { FANOUT_BATCH_SIZE } from './policy.js';

/**
 * The engine as step functions over injected time: tests drive each step with a ManualClock and
 * a fake sender; the worker loops them (worker.ts).
 */
export interface WebhookEngine {
  /** Turns every due outbox row into messages and deliveries (repeats full batches). */
  fanOut(): Promise<FanOutResult[]>;
  /** Claims up to `slots` due deliveries (default: the worker concurrency) and attempts them all. */
  dispatchOnce(slots?: number): Promise<DeliveryOutcome[]>;
  /** Runs the periodic jobs whose period has come. */
  runDueJobs(jobs?: readonly PeriodicJob[]): Promise<string[]>;
  readonly deps: EngineDeps;
}

export function createWebhookEngine(deps: EngineDeps): WebhookEngine {
  return {
    deps,
    async fanOut() {
      const rounds: FanOutResult[] = [];
      for (;;) {
        const round = await fanOutOnce(deps);
        rounds.push(round);
        if (round.busy || round.taken < FANOUT_BATCH_SIZE) return rounds;
      }
    },
    async dispatchOnce(slots = deps.settings.concurrency) {
      const batch = await claimBatch(deps, slots);
      return Promise.all(batch.deliveries.map((d) => attemptDelivery(deps, d, batch.customOfferDomains)));
    },
    runDueJobs(jobs = PERIODIC_JOBS) {
      return runDueJobs(deps, jobs);
    },
  };
}
