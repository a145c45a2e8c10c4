import { MAX_ATTEMPTS, RETRY_PAUSES_MS } from './policy.js';

/**
 * What became of a delivery after one attempt (a type, so every caller handles every case). The
 * engine decides with `decideAfterAttempt`, applies the decision in one transaction, and reports
 * the outcome; `cancelled` means the delivery was cancelled (endpoint paused or removed) or its
 * lease taken over while the attempt was in flight, so the attempt was logged but changed nothing.
 */
export type DeliveryOutcome =
  | { kind: 'delivered'; deliveryId: string; attempt: number }
  | { kind: 'retry-scheduled'; deliveryId: string; attempt: number; nextAttemptAt: Date }
  | { kind: 'failed-finally'; deliveryId: string; attempt: number; endpointPaused: boolean }
  | { kind: 'cancelled'; deliveryId: string; attempt: number }
  /**
   * No attempt was made: the endpoint's secret does not open with the configured master keys.
   * That is the operator's fault, not the subscriber's, so nothing is counted (no attempt, no
   * failure toward the pause after 5; docs/webhook-delivery.md "Retries and pause" is about the endpoint's
   * answers); the delivery waits and is tried again at `retryAt`.
   */
  | { kind: 'held'; deliveryId: string; retryAt: Date };

export type AttemptDecision =
  | { kind: 'delivered' }
  | { kind: 'retry-scheduled'; nextAttemptAt: Date }
  | { kind: 'failed-finally' };

/**
 * openapi.yaml "Webhook delivery and retries": 8 attempts with pauses 1 m, 5 m, 30 m, 2 h, 5 h, 8 h, 8 h,
 * each pause counted from the end of the failed attempt. `maxAttempts` is MAX_ATTEMPTS for the
 * schedule and one more than the attempts made so far for a resend (a resend is one attempt).
 */
export function decideAfterAttempt(input: {
  ok: boolean;
  /** Number of the attempt just made, counting every attempt of the delivery from 1. */
  attempt: number;
  maxAttempts: number;
  finishedAt: Date;
}): AttemptDecision {
  if (input.ok) return { kind: 'delivered' };
  if (input.attempt >= input.maxAttempts) return { kind: 'failed-finally' };
  const pause = RETRY_PAUSES_MS[Math.min(input.attempt, MAX_ATTEMPTS - 1) - 1]!;
  return { kind: 'retry-scheduled', nextAttemptAt: new Date(input.finishedAt.getTime() + pause) };
}
