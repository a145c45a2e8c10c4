import { ENGINE_SOURCE, writeAudit } from '../../domain/audit.js';
import type { EngineDeps } from './deps.js';
import { noticeFinalFailure } from './notices.js';
import type { DeliveryOutcome } from './outcome.js';
import { FAILURES_IN_A_ROW_TO_PAUSE } from './policy.js';
import { addFinalFailure } from '../sql/addFinalFailure.js';
import type { ClaimedDelivery } from '../sql/claimDeliveries.js';
import { lockEndpointForOutcome } from '../sql/lockEndpointForOutcome.js';
import { markEndpointPaused } from '../sql/markEndpointPaused.js';
import { markFailedFinally } from '../sql/markFailedFinally.js';
import { recordAttempt, type AttemptRecord } from '../sql/recordAttempt.js';

/**
 * The last stage of a delivery whose last attempt failed (attempt.ts decides it): one
 * transaction, endpoint first, that records the attempt, ends the delivery as failed
 * (finishDeliveries.ts through markFailedFinally) and, for an event on its original schedule,
 * counts it toward the endpoint's pause after 5 in a row (openapi.yaml "Webhook delivery and retries"),
 * with its audit entry and notices in the same commit. `cancelled` when the claim no longer held.
 */
export async function recordFinalFailure(
  deps: EngineDeps,
  claimed: ClaimedDelivery,
  input: { record: AttemptRecord; finishedAt: Date; countsForStreak: boolean },
): Promise<DeliveryOutcome> {
  const { record, finishedAt, countsForStreak } = input;
  const attempt = record.attempt;
  const cancelled: DeliveryOutcome = { kind: 'cancelled', deliveryId: claimed.id, attempt };
  const lease = { deliveryId: claimed.id, leaseToken: claimed.lease_token, now: finishedAt, lastResponseStatus: record.statusCode };
  return deps.sql.begin(async (tx): Promise<DeliveryOutcome> => {
    if (countsForStreak) await lockEndpointForOutcome(tx, { endpointId: claimed.endpoint_id });
    await recordAttempt(tx, record);
    if (!(await markFailedFinally(tx, lease))) return cancelled;
    let endpointPaused = false;
    if (countsForStreak) {
      const streak = await addFinalFailure(tx, { endpointId: claimed.endpoint_id, now: finishedAt });
      let cancelled = 0;
      if (streak >= FAILURES_IN_A_ROW_TO_PAUSE) {
        ({ paused: endpointPaused, cancelled } = await markEndpointPaused(tx, { endpointId: claimed.endpoint_id, now: finishedAt, reason: 'failures' }));
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
      // The 3rd final failure in a row and the pause are mailed to owners and admins with this commit.
      await noticeFinalFailure(tx, deps, { endpointId: claimed.endpoint_id, streak, paused: endpointPaused, cancelled, now: finishedAt });
    }
    return { kind: 'failed-finally', deliveryId: claimed.id, attempt, endpointPaused };
  });
}
