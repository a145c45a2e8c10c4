import type { ClaimedDelivery } from '../sql/claimDeliveries.js';
import { createCompletionQueue } from './completion.js';
import type { EngineDeps } from './deps.js';
import { attemptDelivery } from './attempt.js';
import { claimBatch, type ClaimedBatch } from './claim.js';
import { emptyFanOut, fanOutOnce, type FanOutResult } from './fanout.js';
import { runDueJobs, PERIODIC_JOBS, type PeriodicJob } from '../../jobs/jobs.js';
import { webhookJobs } from './webhook-jobs.js';
import type { DeliveryOutcome } from './outcome.js';

/** One round of the worker loop: one fan-out batch, then a claim (see WebhookEngine.step). */
export interface EngineStep {
  fanOut: FanOutResult;
  /** Another fan-out batch is due at once: this one was full and no other worker held the lock. */
  moreToFanOut: boolean;
  claimed: ClaimedBatch;
}

/**
 * The engine as step functions over injected time: tests drive each step with a ManualClock and
 * a fake sender; the worker loops them (src/host/worker.ts).
 */
export interface WebhookEngine {
  /** Turns every due outbox row into messages and deliveries (repeats full batches). */
  fanOut(): Promise<FanOutResult[]>;
  /** Claims up to `slots` due deliveries (default: the worker concurrency) and attempts them all. */
  dispatchOnce(slots?: number): Promise<DeliveryOutcome[]>;
  /**
   * One round of the worker loop: at most one fan-out batch, then a claim of up to `slots` due
   * deliveries, which the caller attempts (`attempt`). A backlog in the outbox is worked off one
   * batch per round, so deliveries already due keep being claimed in between: a burst of one
   * workspace's events never holds back the deliveries of others (openapi.yaml "Webhook ordering and duplicates" and
   * "Webhook limits": round-robin, whose whole rule is told in round-robin.ts). Slots 0 only fans out;
   * `fanOut` false only claims (the caller knows the outbox has nothing due).
   */
  step(slots: number, fanOut?: boolean): Promise<EngineStep>;
  /**
   * One attempt of a delivery claimed by `step`, and its consequence; `sent` is called when its
   * request has ended and only the outcome's write remains (see attemptDelivery).
   */
  attempt(claimed: ClaimedDelivery, customOfferDomains: string[], sent?: () => void): Promise<DeliveryOutcome>;
  /** Runs the periodic jobs whose period has come. */
  runDueJobs(jobs?: readonly PeriodicJob[]): Promise<string[]>;
  readonly deps: EngineDeps;
}

export function createWebhookEngine(deps: EngineDeps): WebhookEngine {
  // Outcomes of this engine's attempts are written in batches (completion.ts).
  const completions = createCompletionQueue(deps.sql);
  return {
    deps,
    async fanOut() {
      const rounds: FanOutResult[] = [];
      for (;;) {
        const round = await fanOutOnce(deps);
        rounds.push(round);
        if (!isFullRound(round)) return rounds;
      }
    },
    async dispatchOnce(slots = deps.settings.concurrency) {
      const batch = await claimBatch(deps, slots);
      return Promise.all(batch.deliveries.map((d) => attemptDelivery(deps, d, batch.customOfferDomains, completions)));
    },
    async step(slots, fanOut = true) {
      const round = fanOut ? await fanOutOnce(deps) : emptyFanOut();
      const claimed = slots > 0 ? await claimBatch(deps, slots) : { deliveries: [], customOfferDomains: [] };
      return { fanOut: round, moreToFanOut: isFullRound(round), claimed };
    },
    attempt(claimed, customOfferDomains, sent) {
      return attemptDelivery(deps, claimed, customOfferDomains, completions, sent);
    },
    runDueJobs(jobs = [...PERIODIC_JOBS, ...webhookJobs(deps)]) {
      return runDueJobs(deps, jobs);
    },
  };
}


function isFullRound(round: FanOutResult): boolean {
  return !round.busy && round.more;
}
