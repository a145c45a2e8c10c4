import type { DeliveryStatus } from '../delivery.js';
import type { WaitingFacts } from '../sql/readWaitingFacts.js';

/**
 * Why an open delivery has not been attempted yet, stated from the engine's own rules
 * (claimDeliveries.ts, policy.ts), in the order the claim applies them:
 *
 * - `retry_pause`: it is pending and due later (openapi.yaml "Webhook delivery and retries": the pause
 *   before the next attempt). Only a failed attempt schedules a delivery in the future.
 * - `workspace_start_rate`: it is due, but its workspace has started its 60 deliveries of the
 *   current minute (docs/webhook-delivery.md "Limits": "excess waits, is not dropped"); the claim skips
 *   the whole workspace until the window ends.
 * - `endpoint_cap`: it is due, but its endpoint already holds its share of attempts in flight
 *   fleet-wide (maxInFlightPerEndpoint: a quarter of a worker's concurrency), so a slow endpoint
 *   never holds back the others (openapi.yaml "Webhook ordering and duplicates"). The endpoint's 1,000 open deliveries
 *   never make a delivery wait: past them, new deliveries are recorded failed at fan-out
 *   (docs/webhook-delivery.md "Fairness"), and a resend that does not fit is refused.
 * - `turn`: it is due and nothing blocks it: it waits for its round-robin turn (docs/webhook-delivery.md
 *   "Fairness": "Workspaces are served round-robin, longest-waiting first"), behind earlier due
 *   deliveries of its endpoint and workspace.
 *
 * A `sending` delivery is in flight (null) until its lease passes; then a worker died mid-attempt
 * and it is due again like a pending one. Finished deliveries do not wait (null).
 */
export type WaitingReason = 'retry_pause' | 'endpoint_cap' | 'workspace_start_rate' | 'turn';

export interface WaitingRules {
  /** docs/webhook-delivery.md "Limits": deliveries started per minute per workspace. */
  startsPerWindow: number;
  /** maxInFlightPerEndpoint(worker concurrency). */
  maxInFlightPerEndpoint: number;
}

export function waitingReason(
  delivery: { status: DeliveryStatus; endpoint_id: string; next_attempt_at: Date | null; lease_until: Date | null },
  facts: WaitingFacts,
  rules: WaitingRules,
  now: Date,
): WaitingReason | null {
  const at = now.getTime();
  if (delivery.status === 'pending') {
    if (delivery.next_attempt_at !== null && delivery.next_attempt_at.getTime() > at) return 'retry_pause';
  } else if (delivery.status === 'sending') {
    if (delivery.lease_until === null || delivery.lease_until.getTime() > at) return null;
  } else {
    return null;
  }
  if (facts.windowStarts >= rules.startsPerWindow) return 'workspace_start_rate';
  if ((facts.inFlight.get(delivery.endpoint_id) ?? 0) >= rules.maxInFlightPerEndpoint) return 'endpoint_cap';
  return 'turn';
}
