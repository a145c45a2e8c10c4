import { observeDeliveryLag, observeEndToEnd, observeWebhookAttempt, type AttemptOutcomeLabel } from '../../telemetry/metrics.js';
import type { ClaimedDelivery } from '../sql/claimDeliveries.js';
import type { AttemptFailure, AttemptOutcome } from '../transport/sender.js';

/**
 * The metrics of one webhook attempt (docs/operations.md "Metrics"): its outcome and duration, how
 * late it started, and for the first 2xx of an event on its own schedule the time from the event's
 * commit. Labels are the closed outcome set; nothing about the endpoint or workspace.
 */

/** The sender's failure kinds (transport/sender.ts) as metric outcomes; one home for the mapping. */
const FAILURE_OUTCOMES: Record<AttemptFailure, AttemptOutcomeLabel> = {
  status: 'http_error',
  timeout: 'timeout',
  connect: 'connection_error',
  tls: 'tls_error',
  address: 'address_refused',
  reply: 'reply_error',
};

export function attemptOutcomeLabel(result: AttemptOutcome): AttemptOutcomeLabel {
  if (result.ok) return 'success';
  // A sender that threw (attempt.ts turns it into a failed attempt without a kind).
  return result.failure === undefined ? 'internal_error' : FAILURE_OUTCOMES[result.failure];
}

/** When an attempt starts: how long after it was due. */
export function recordAttemptStart(claimed: ClaimedDelivery, startedAt: Date): void {
  observeDeliveryLag((startedAt.getTime() - claimed.due_at.getTime()) / 1000);
}

/** When an attempt's request has ended. */
export function recordAttemptResult(result: AttemptOutcome): void {
  observeWebhookAttempt(attemptOutcomeLabel(result), result.durationMs / 1000);
}

/**
 * When a 2xx has been recorded (the delivery was still this worker's): the event's end-to-end
 * time. Tests (ping) and resends are left out: they are not the event's own way to the receiver.
 */
export function recordDelivered(claimed: ClaimedDelivery, deliveredAt: Date): void {
  if (claimed.is_test || claimed.resend_count > 0 || claimed.event_recorded_at === null) return;
  observeEndToEnd((deliveredAt.getTime() - claimed.event_recorded_at.getTime()) / 1000);
}
