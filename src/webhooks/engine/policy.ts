import { HOUR, MINUTE } from '../../clock.js';
import { ENDPOINT_SHARES_PER_WORKER } from '../../config/webhooks.js';

/**
 * The webhook engine's policy numbers, each named with its unit and tied to the rule it
 * implements, cited beside each. Changing one of these changes the public contract.
 */

/** openapi.yaml "Webhook delivery and retries": pause before attempts 2..8 (1 m, 5 m, 30 m, 2 h, 5 h, 8 h, 8 h). */
export const RETRY_PAUSES_MS: readonly number[] = [
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  8 * HOUR,
  8 * HOUR,
];
/** docs/webhook-delivery.md "Limits": attempts per delivery. */
export const MAX_ATTEMPTS = RETRY_PAUSES_MS.length + 1;
/**
 * openapi.yaml "Webhook delivery and retries": a failed delivery can be resent from the delivery
 * log up to 5 times (console-api.yaml "Limits"). The one home of the number: the resend statements
 * take it through sql/resendLeft.ts, the single resend's check and the CLI's text through here.
 */
export const MAX_RESENDS = 5;
/** Whether a delivery resent `resendCount` times may be resent once more (sql/resendLeft.ts in SQL). */
export function hasResendLeft(resendCount: number): boolean {
  return resendCount < MAX_RESENDS;
}
/** openapi.yaml "Webhook delivery and retries": after 5 deliveries in a row failed finally, the endpoint is paused. */
export const FAILURES_IN_A_ROW_TO_PAUSE = 5;

/** console-api.yaml "Limits": endpoints per workspace. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 5;
/** console-api.yaml "Limits": workspaces in which one account may create endpoints (paused ones count). */
export const MAX_WORKSPACES_PER_ACCOUNT = 20;
/** docs/webhook-delivery.md "Limits": open deliveries per endpoint. */
export const MAX_OPEN_DELIVERIES_PER_ENDPOINT = 1_000;
/** docs/webhook-delivery.md "Limits": events waiting to be sent, per workspace. */
export const MAX_WAITING_EVENTS_PER_WORKSPACE = 1_000;
/** console-api.yaml "Limits": test events per 10 minutes (counted per endpoint). */
export const MAX_TEST_EVENTS_PER_WINDOW = 10;
export const TEST_EVENT_WINDOW_MS = 10 * MINUTE;
/** openapi.yaml "Webhook request": "The body is at most 64 KiB." (the sender's limit, and what `offerdesk listen` accepts) */
export const MAX_WEBHOOK_BODY_BYTES = 64 * 1024;
/**
 * The fairness numbers: the start rate's window and default, and an endpoint's share of a worker,
 * are in src/config/webhooks.ts, as two of them are settings' defaults (config imports no layer).
 */
export { START_RATE_WINDOW_MS } from '../../config/webhooks.js';

/**
 * How long a delivery waits when its endpoint's secret does not open with the configured master
 * keys (not an attempt: the operator must fix the key; a restart with the right key picks it up).
 */
export const SECRET_UNAVAILABLE_RETRY_MS = 1 * MINUTE;

// The round-robin's batch sizes (FANOUT_BATCH_SIZE, FANOUT_ROWS_PER_WORKSPACE, CLAIM_WORKSPACES)
// live with the rule in round-robin.ts.
/** How long an idle worker waits before looking for work again (outbox inserts also wake it). */
export const POLL_INTERVAL_MS = 250;

/**
 * At most this share of one worker's concurrency goes to a single endpoint (fleet-wide in-flight
 * count), so a slow endpoint holding every request open for 10 s occupies its share and the
 * others keep flowing (openapi.yaml "Webhook ordering and duplicates": "a failing endpoint does not hold back others").
 */
export function maxInFlightPerEndpoint(workerConcurrency: number): number {
  return Math.max(1, Math.floor(workerConcurrency / ENDPOINT_SHARES_PER_WORKER));
}

/**
 * A worker claims again once at least this many of its attempt slots are free (all of them), so
 * one claim statement fills a batch of slots instead of one per finished attempt. A slot is free
 * as soon as its request has ended (worker.ts), and a claim costs about the same for 32
 * deliveries as for 64, so waiting for every slot delivers more per second than claiming at half
 * or three quarters (547/s against 472/s and 488/s with 20,000 open deliveries). Fewer
 * free slots are claimed for at the next poll (POLL_INTERVAL_MS after the last claim), so no slot
 * sits idle longer than that while deliveries are due. While claims come back full, the worker
 * does not wait for free slots at all: it claims the next whole batch ahead (worker.ts).
 */
export function claimWhenFreeSlots(workerConcurrency: number): number {
  return Math.max(1, workerConcurrency);
}

/**
 * How long a delivery claimed ahead (worker.ts) may wait for a slot before it is given back: its
 * lease must still cover a whole attempt (the sender's response timeout) and the outcome's write
 * after it with as much again to spare, so waiting never lets a lease end under a live attempt.
 */
export function longestWaitForSlotMs(leaseMs: number, responseTimeoutMs: number): number {
  return Math.max(0, (leaseMs - responseTimeoutMs) / 2);
}

/**
 * Endpoint health notices (health.ts). The early signal, in the spirit of Svix's warning at the
 * 4th attempt: no successful attempt for this long while at least HEALTH_FAILING_MIN_FAILURES
 * attempts failed (one failing event reaches its 4th failed attempt 36 minutes after the first,
 * its 5th at 2 h 36 m).
 */
export const HEALTH_FAILING_AFTER_MS = 1 * HOUR;
export const HEALTH_FAILING_MIN_FAILURES = 3;
/** Final failures in a row that are told before the pause at FAILURES_IN_A_ROW_TO_PAUSE. */
export const HEALTH_NOTICE_AT_STREAK = 3;
/** How often the health job looks for endpoints starting to fail or recovering. */
export const HEALTH_JOB_INTERVAL_MS = 1 * MINUTE;
/** Failed attempts a notice lists. */
export const HEALTH_NOTICE_LAST_ERRORS = 3;
