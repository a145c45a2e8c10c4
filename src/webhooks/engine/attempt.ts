import { coerceError } from '../../log.js';
import { recordAttemptResult, recordAttemptStart, recordDelivered } from './attempt-metrics.js';
import { markSpanFailed, tracedDeps, withSpan, type Span } from '../../telemetry/tracing.js';
import { completeOne, type CompletionQueue } from './completion.js';
import type { EngineDeps } from './deps.js';
import { recordFinalFailure } from './final-failure.js';
import { decideAfterAttempt, type DeliveryOutcome } from './outcome.js';
import { SECRET_UNAVAILABLE_RETRY_MS } from './policy.js';
import { openSecret, SecretUnavailableError } from '../../sealing/secrets.js';
import type { AttemptOutcome } from '../transport/sender.js';
import type { ClaimedDelivery } from '../sql/claimDeliveries.js';
import { releaseClaim } from '../sql/releaseClaim.js';

/** The attempt, the second stage of a delivery (after claim.ts): the request and its outcome. */

/**
 * One attempt of a claimed delivery, then its consequence. A delivery counts toward the
 * endpoint's failure streak only when it is an event on its original schedule: tests (ping) and
 * resends neither extend nor reset the streak (docs/delivery-log.md, Resending).
 *
 * `sent` is called once the request has ended, before its outcome is written: the worker's slot
 * is free from then on (host/worker.ts), while the delivery stays claimed until the outcome is stored.
 *
 * With tracing on, each attempt is a client span of its own trace, linked to the span of the
 * action behind the event (the traceparent its message keeps), with the outcome as attributes:
 * the endpoint's host, never its path or query, and nothing of the body, secret or signature.
 */
export function attemptDelivery(
  deps: EngineDeps,
  claimed: ClaimedDelivery,
  customOfferDomains: string[],
  completions?: CompletionQueue,
  sent?: () => void,
): Promise<DeliveryOutcome> {
  const span = {
    kind: 'client' as const,
    links: [claimed.traceparent],
    attributes: {
      'http.request.method': 'POST',
      'server.address': hostOf(claimed.url),
      'offerdesk.webhook.id': claimed.message_id,
      'offerdesk.webhook.type': claimed.type,
      'offerdesk.delivery.id': claimed.id,
      'offerdesk.delivery.attempt': claimed.attempt_count + 1,
    },
  };
  return withSpan('webhook attempt', span, async (active) => {
    const outcome = await attemptAndRecord(tracedDeps(deps, active), claimed, customOfferDomains, completions, sent, active);
    active?.setAttribute('offerdesk.delivery.outcome', outcome.kind);
    return outcome;
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'invalid';
  }
}

async function attemptAndRecord(
  deps: EngineDeps,
  claimed: ClaimedDelivery,
  customOfferDomains: string[],
  completions: CompletionQueue | undefined,
  sent: (() => void) | undefined,
  span: Span | undefined,
): Promise<DeliveryOutcome> {
  const attemptAt = deps.clock.now();
  let secret: string;
  try {
    secret = openSecret({ current: deps.masterKey, previous: deps.previousMasterKeys ?? [] }, claimed.endpoint_id, claimed.secret_sealed);
  } catch (thrown) {
    if (!(thrown instanceof SecretUnavailableError)) throw thrown;
    return holdDelivery(deps, claimed, thrown);
  }
  recordAttemptStart(claimed, attemptAt);
  const result = await send(deps, claimed, secret, attemptAt, customOfferDomains);
  sent?.();
  recordAttemptResult(result);
  recordResult(span, result);
  const finishedAt = deps.clock.now();
  const attempt = claimed.attempt_count + 1;
  const countsForStreak = !claimed.is_test && claimed.resend_count === 0;
  const decision = decideAfterAttempt({ ok: result.ok, attempt, maxAttempts: claimed.max_attempts, finishedAt });
  const record = {
    deliveryId: claimed.id,
    attempt,
    attemptedAt: attemptAt,
    succeeded: result.ok,
    statusCode: result.status,
    error: result.ok ? null : result.error,
    durationMs: result.durationMs,
    responsePrefix: result.responsePrefix,
    signature: result.signature ?? null,
  };
  const cancelled: DeliveryOutcome = { kind: 'cancelled', deliveryId: claimed.id, attempt };

  if (decision.kind !== 'failed-finally') {
    // Delivered or retried: one row of a batched completion (completion.ts, completeAttempts.ts).
    const done = {
      ...record,
      leaseToken: claimed.lease_token,
      endpointId: claimed.endpoint_id,
      nextAttemptAt: decision.kind === 'retry-scheduled' ? decision.nextAttemptAt : null,
      finishedAt,
      resetsStreak: countsForStreak,
    };
    const held = completions ? await completions.complete(done) : await completeOne(deps.sql, done);
    if (!held) return cancelled;
    if (decision.kind !== 'delivered') return { kind: 'retry-scheduled', deliveryId: claimed.id, attempt, nextAttemptAt: decision.nextAttemptAt };
    recordDelivered(claimed, finishedAt);
    return { kind: 'delivered', deliveryId: claimed.id, attempt };
  }

  // A final failure counts toward the pause after 5 in a row: its own transaction (final-failure.ts).
  return recordFinalFailure(deps, claimed, { record, finishedAt, countsForStreak });
}

/**
 * The endpoint's secret does not open (see the `held` outcome): the claim is given back without
 * an attempt and the delivery waits SECRET_UNAVAILABLE_RETRY_MS; the operator is told every time.
 */
async function holdDelivery(deps: EngineDeps, claimed: ClaimedDelivery, error: SecretUnavailableError): Promise<DeliveryOutcome> {
  const now = deps.clock.now();
  const retryAt = new Date(now.getTime() + SECRET_UNAVAILABLE_RETRY_MS);
  deps.logger.error(
    { endpointId: claimed.endpoint_id, deliveryId: claimed.id, retryAt: retryAt.toISOString(), reason: error.message },
    'webhook delivery held: the endpoint secret does not open with the configured master keys (OFFERDESK_MASTER_KEY, OFFERDESK_MASTER_KEYS_PREVIOUS); not counted as an attempt',
  );
  await releaseClaim(deps.sql, { deliveryId: claimed.id, leaseToken: claimed.lease_token, nextAttemptAt: retryAt, now });
  return { kind: 'held', deliveryId: claimed.id, retryAt };
}

/** The attempt's result on its span: status code, or the kind of failure (never the reply). */
function recordResult(span: Span | undefined, result: AttemptOutcome): void {
  if (!span) return;
  if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
  if (!result.ok) markSpanFailed(span, result.failure ?? 'error');
}

/** The sender reports network problems as outcomes; anything it throws is one as well. */
async function send(
  deps: EngineDeps,
  claimed: ClaimedDelivery,
  secret: string,
  attemptAt: Date,
  customOfferDomains: string[],
): Promise<AttemptOutcome> {
  try {
    return await deps.sender.send({
      url: claimed.url,
      secret,
      messageId: claimed.message_id,
      body: claimed.body,
      attemptAt,
      customOfferDomains,
      devListen: claimed.dev_listen,
    });
  } catch (thrown) {
    const error = coerceError(thrown);
    deps.logger.error({ err: error, deliveryId: claimed.id }, 'webhook sender failed unexpectedly');
    return { ok: false, status: null, error: `internal error: ${error.message}`, durationMs: 0, responsePrefix: null };
  }
}
