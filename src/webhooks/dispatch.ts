import { ENGINE_SOURCE, writeAudit } from '../domain/audit.js';
import { coerceError } from '../log.js';
import type { EngineDeps } from './deps.js';
import { decideAfterAttempt, type DeliveryOutcome } from './outcome.js';
import {
  CLAIM_WORKSPACES,
  FAILURES_IN_A_ROW_TO_PAUSE,
  START_RATE_WINDOW_MS,
  maxInFlightPerEndpoint,
} from './policy.js';
import { decryptSecret } from './secrets.js';
import type { AttemptOutcome } from './sender.js';
import { addFinalFailure } from './sql/addFinalFailure.js';
import { claimDeliveries, type ClaimedDelivery } from './sql/claimDeliveries.js';
import { lockEndpointForOutcome } from './sql/lockEndpointForOutcome.js';
import { markDelivered } from './sql/markDelivered.js';
import { markFailedFinally } from './sql/markFailedFinally.js';
import { pauseEndpoint } from './sql/pauseEndpoint.js';
import { readOfferDomains } from './sql/readOfferDomains.js';
import { recordAttempt } from './sql/recordAttempt.js';
import { resetFailureStreak } from './sql/resetFailureStreak.js';
import { scheduleRetry } from './sql/scheduleRetry.js';

export interface ClaimedBatch {
  deliveries: ClaimedDelivery[];
  /** Read once per batch for the connect-time address check. */
  customOfferDomains: string[];
}

/** Claims up to `slots` due deliveries (fairness, start rate and leases: see claimDeliveries). */
export async function claimBatch(deps: EngineDeps, slots: number): Promise<ClaimedBatch> {
  const now = deps.clock.now();
  const deliveries = await claimDeliveries(deps.sql, {
    now,
    limit: slots,
    leaseUntil: new Date(now.getTime() + deps.settings.leaseMs),
    startsPerWindow: deps.settings.startsPerMinutePerWorkspace,
    windowEndedBefore: new Date(now.getTime() - START_RATE_WINDOW_MS),
    maxInFlightPerEndpoint: maxInFlightPerEndpoint(deps.settings.concurrency),
    maxWorkspaces: CLAIM_WORKSPACES,
  });
  const customOfferDomains = deliveries.length > 0 ? await readOfferDomains(deps.sql) : [];
  return { deliveries, customOfferDomains };
}

/**
 * One attempt of a claimed delivery, then its consequence. A delivery counts toward the
 * endpoint's failure streak only when it is an event on its original schedule: tests (ping) and
 * resends neither extend nor reset the streak (README "Resending a delivery").
 */
export async function attemptDelivery(
  deps: EngineDeps,
  claimed: ClaimedDelivery,
  customOfferDomains: string[],
): Promise<DeliveryOutcome> {
  const attemptAt = deps.clock.now();
  const result = await send(deps, claimed, attemptAt, customOfferDomains);
  const finishedAt = deps.clock.now();
  const attempt = claimed.attempt_count + 1;
  const countsForStreak = !claimed.is_test && claimed.resend_count === 0;
  const decision = decideAfterAttempt({ ok: result.ok, attempt, maxAttempts: claimed.max_attempts, finishedAt });
  const lease = { deliveryId: claimed.id, leaseToken: claimed.lease_token, now: finishedAt };

  const touchesEndpoint = countsForStreak && decision.kind !== 'retry-scheduled';

  return deps.sql.begin(async (tx): Promise<DeliveryOutcome> => {
    if (touchesEndpoint) await lockEndpointForOutcome(tx, { endpointId: claimed.endpoint_id });
    await recordAttempt(tx, {
      deliveryId: claimed.id,
      attempt,
      attemptedAt: attemptAt,
      succeeded: result.ok,
      statusCode: result.status,
      error: result.ok ? null : result.error,
      durationMs: result.durationMs,
      responsePrefix: result.responsePrefix,
      signature: result.signature ?? null,
    });
    const cancelled: DeliveryOutcome = { kind: 'cancelled', deliveryId: claimed.id, attempt };
    switch (decision.kind) {
      case 'delivered': {
        if (!(await markDelivered(tx, lease))) return cancelled;
        if (countsForStreak) await resetFailureStreak(tx, { endpointId: claimed.endpoint_id, now: finishedAt });
        return { kind: 'delivered', deliveryId: claimed.id, attempt };
      }
      case 'retry-scheduled': {
        if (!(await scheduleRetry(tx, { ...lease, nextAttemptAt: decision.nextAttemptAt }))) return cancelled;
        return { kind: 'retry-scheduled', deliveryId: claimed.id, attempt, nextAttemptAt: decision.nextAttemptAt };
      }
      case 'failed-finally': {
        if (!(await markFailedFinally(tx, lease))) return cancelled;
        let endpointPaused = false;
        if (countsForStreak) {
          const streak = await addFinalFailure(tx, { endpointId: claimed.endpoint_id, now: finishedAt });
          if (streak >= FAILURES_IN_A_ROW_TO_PAUSE) {
            endpointPaused = (await pauseEndpoint(tx, { endpointId: claimed.endpoint_id, now: finishedAt })).paused;
            if (endpointPaused) {
              await writeAudit(tx, {
                workspaceId: claimed.workspace_id,
                actorId: null,
                via: ENGINE_SOURCE,
                action: 'endpoint.paused',
                target: { type: 'endpoint', id: claimed.endpoint_id },
                details: { reason: 'failures', failures_in_a_row: streak },
                at: finishedAt,
              });
            }
          }
        }
        return { kind: 'failed-finally', deliveryId: claimed.id, attempt, endpointPaused };
      }
    }
  }) as Promise<DeliveryOutcome>;
}

/** The sender reports network problems as outcomes; anything it throws is one as well. */
async function send(
  deps: EngineDeps,
  claimed: ClaimedDelivery,
  attemptAt: Date,
  customOfferDomains: string[],
): Promise<AttemptOutcome> {
  let secret: string;
  try {
    secret = decryptSecret(deps.masterKey, claimed.secret_sealed);
  } catch (thrown) {
    deps.logger.error({ err: coerceError(thrown), endpointId: claimed.endpoint_id }, 'endpoint secret cannot be opened');
    return { ok: false, status: null, error: 'endpoint secret cannot be opened with the configured master key', durationMs: 0, responsePrefix: null };
  }
  try {
    return await deps.sender.send({
      url: claimed.url,
      secret,
      messageId: claimed.message_id,
      body: claimed.body,
      attemptAt,
      customOfferDomains,
    });
  } catch (thrown) {
    const error = coerceError(thrown);
    deps.logger.error({ err: error, deliveryId: claimed.id }, 'webhook sender failed unexpectedly');
    return { ok: false, status: null, error: `internal error: ${error.message}`, durationMs: 0, responsePrefix: null };
  }
}
