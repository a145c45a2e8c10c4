import type { EngineDeps, EngineSettings } from './deps.js';
import { START_RATE_WINDOW_MS, maxInFlightPerEndpoint } from './policy.js';
import { CLAIM_WORKSPACES } from './round-robin.js';
import { WORKER_LOCK_CLASS } from './liveness.js';
import { claimDeliveries, type ClaimInput, type ClaimedDelivery } from '../sql/claimDeliveries.js';
import { readDevListenTargets } from '../sql/devListen.js';
import { readOfferDomains } from '../sql/readOfferDomains.js';

/** The claim, the first stage of a delivery: then attempt.ts, and final-failure.ts for a last failed attempt. */

export interface ClaimedBatch {
  deliveries: ClaimedDelivery[];
  /** Read once per batch for the connect-time address check. */
  customOfferDomains: string[];
}

/**
 * What a worker with `settings` claims with at `now`, up to `slots` deliveries: the limits of
 * docs/webhook-delivery.md "Limits" as the engine applies them. Also what the tests that EXPLAIN the claim run it with.
 */
export function claimInput(
  now: Date,
  slots: number,
  settings: Pick<EngineSettings, 'leaseMs' | 'startsPerMinutePerWorkspace' | 'concurrency'>,
  workerId: ClaimInput['workerId'],
): ClaimInput {
  return {
    now,
    limit: slots,
    leaseUntil: new Date(now.getTime() + settings.leaseMs),
    startsPerWindow: settings.startsPerMinutePerWorkspace,
    windowEndedBefore: new Date(now.getTime() - START_RATE_WINDOW_MS),
    maxInFlightPerEndpoint: maxInFlightPerEndpoint(settings.concurrency),
    maxWorkspaces: CLAIM_WORKSPACES,
    workerId,
    workerLockClass: WORKER_LOCK_CLASS,
  };
}

/** Claims up to `slots` due deliveries (fairness, start rate and leases: see claimDeliveries). */
export async function claimBatch(deps: EngineDeps, slots: number): Promise<ClaimedBatch> {
  const deliveries = await claimDeliveries(deps.sql, claimInput(deps.clock.now(), slots, deps.settings, deps.workerId?.() ?? null));
  const customOfferDomains = deliveries.length > 0 ? await readOfferDomains(deps.sql) : [];
  if (!deps.settings.devListen || deliveries.length === 0) return { deliveries, customOfferDomains };
  const targets = await readDevListenTargets(deps.sql, [...new Set(deliveries.map((d) => d.endpoint_id))]);
  const withTargets = deliveries.map((d) => (targets.has(d.endpoint_id) ? { ...d, dev_listen: targets.get(d.endpoint_id) } : d));
  return { deliveries: withTargets, customOfferDomains };
}
