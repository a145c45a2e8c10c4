import { MANAGER_ROLES, requireRole } from '../../domain/accounts.js';
import { writeAudit, type AuditSource } from '../../domain/audit.js';
import { domainError, invalidTransition, notFound } from '../../domain/errors.js';
import { isUuid } from '../../domain/validate.js';
import { checkLogTime, showDeliveryLogView, type DeliveryLogView, type LogDeps } from './delivery-log.js';
import { hasResendLeft, MAX_OPEN_DELIVERIES_PER_ENDPOINT, MAX_RESENDS } from '../engine/policy.js';
import { countFailedSince } from '../sql/countFailedSince.js';
import { countOpenDeliveries } from '../sql/countOpenDeliveries.js';
import { readDelivery } from '../sql/readDelivery.js';
import { readEndpoint } from '../sql/readEndpoint.js';
import { requeueForResend } from '../sql/requeueForResend.js';

/**
 * Resend from the delivery log (openapi.yaml "Webhook delivery and retries": "It can be resent from the
 * delivery log up to 5 times; a resend has the same webhook-id and body").
 *
 * A resend is ONE attempt, due at once, of the stored message: same webhook-id, same body bytes,
 * a fresh webhook-timestamp and signature. It does not start a new 8-attempt schedule: the
 * operator resends after repairing the receiver and sees the result in the log within seconds;
 * if it fails, they can resend again (up to 5 times) instead of the service retrying for another
 * day on its own. Its outcome does not count toward pausing the endpoint and does not reset the
 * streak: the streak measures the automatic schedule, and a person is watching a resend.
 *
 * Any finished delivery can be resent (failed, cancelled by a pause, or succeeded, for a receiver
 * that lost it), while the endpoint is active and has room under the 1,000 open deliveries.
 * Answers with the delivery as the log shows it.
 */
export async function resendDelivery(
  deps: LogDeps,
  input: { deliveryId: string; actorId: string | null; via?: AuditSource },
): Promise<DeliveryLogView> {
  const first = isUuid(input.deliveryId) ? await readDelivery(deps.sql, { deliveryId: input.deliveryId }) : null;
  if (!first) throw notFound(`delivery ${input.deliveryId}`);
  await requireRole(deps.sql, { workspaceId: first.workspace_id, accountId: input.actorId, roles: MANAGER_ROLES, target: `delivery ${input.deliveryId}` });
  await deps.sql.begin(async (tx) => {
    const row = await readDelivery(tx, { deliveryId: first.id, forUpdate: true });
    if (!row) throw notFound(`delivery ${input.deliveryId}`);
    if (row.status === 'pending' || row.status === 'sending') {
      throw invalidTransition(`delivery ${row.id} is still ${row.status}; only a finished delivery can be resent`);
    }
    if (!hasResendLeft(row.resend_count)) {
      throw domainError('OD_ERR_RESENDS_PER_DELIVERY', row.id, MAX_RESENDS);
    }
    const endpoint = await readEndpoint(tx, { endpointId: row.endpoint_id });
    if (!endpoint) throw invalidTransition(`the endpoint of delivery ${row.id} was removed`);
    if (endpoint.state === 'paused') {
      throw invalidTransition(`endpoint ${endpoint.id} is paused; resume it before resending`);
    }
    if ((await countOpenDeliveries(tx, { endpointId: endpoint.id })) >= MAX_OPEN_DELIVERIES_PER_ENDPOINT) {
      throw invalidTransition(
        `endpoint ${endpoint.id} already holds ${MAX_OPEN_DELIVERIES_PER_ENDPOINT} open deliveries; resend later`,
      );
    }
    const now = deps.clock.now();
    await requeueForResend(tx, { deliveryId: row.id, now });
    await writeAudit(tx, {
      workspaceId: row.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'delivery.resent',
      target: { type: 'delivery', id: row.id },
      details: { webhook_id: row.message_id, type: row.type, endpoint_id: row.endpoint_id, resend: row.resend_count + 1 },
      at: now,
    });
  });
  return showDeliveryLogView(deps, { workspaceId: first.workspace_id, deliveryId: first.id });
}

/**
 * "Resend failed since ..." for an endpoint that was down (openapi.yaml "Webhook delivery and retries": a
 * failed delivery "can be resent from the delivery log up to 5 times"): the endpoint's failed
 * deliveries created since a time, each resent as a single resend would be and within its own
 * limit of 5; those at their limit are skipped and counted. The preview counts exactly the rows
 * the resend takes (same conditions), so "it will resend n" is what it then resends, unless the
 * log changes in between.
 *
 * The resends must fit the endpoint's 1,000 open deliveries (docs/webhook-delivery.md "Limits") all at
 * once: a partial resend would leave the person guessing which ones went, so one that does not
 * fit is refused with how many fit.
 */
export interface ResendFailedInput {
  workspaceId: string;
  endpointId: string;
  since: Date;
}

export async function previewResendFailed(deps: LogDeps, input: ResendFailedInput): Promise<{ count: number; skipped_limit: number }> {
  const endpoint = await endpointOf(deps, input);
  const counts = await countFailedSince(deps.sql, { endpointId: endpoint.id, since: input.since });
  return { count: counts.resendable, skipped_limit: counts.atLimit };
}

export async function resendFailed(
  deps: LogDeps,
  input: ResendFailedInput & { actorId: string | null; via?: AuditSource },
): Promise<{ resent: number; skipped_limit: number }> {
  await endpointOf(deps, input);
  await requireRole(deps.sql, { workspaceId: input.workspaceId, accountId: input.actorId, roles: MANAGER_ROLES });
  return (await deps.sql.begin(async (tx) => {
    // Serialises resends of this endpoint, so two at once cannot both pass the open limit.
    const endpoint = await readEndpoint(tx, { endpointId: input.endpointId, forUpdate: true });
    if (!endpoint || endpoint.workspace_id !== input.workspaceId) throw notFound(`endpoint ${input.endpointId}`);
    if (endpoint.state === 'paused') throw invalidTransition(`endpoint ${endpoint.id} is paused; resume it before resending`);
    const counts = await countFailedSince(tx, { endpointId: endpoint.id, since: input.since });
    const room = MAX_OPEN_DELIVERIES_PER_ENDPOINT - (await countOpenDeliveries(tx, { endpointId: endpoint.id }));
    if (counts.resendable > room) {
      throw domainError('OD_ERR_OPEN_DELIVERIES_PER_ENDPOINT', counts.resendable, endpoint.id, Math.max(0, room), MAX_OPEN_DELIVERIES_PER_ENDPOINT);
    }
    const now = deps.clock.now();
    const resent = await requeueForResend(tx, { endpointId: endpoint.id, since: input.since, now });
    await writeAudit(tx, {
      workspaceId: endpoint.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'delivery.resent_failed',
      target: { type: 'endpoint', id: endpoint.id },
      details: { since: input.since.toISOString(), resent: resent.length, skipped_limit: counts.atLimit },
      at: now,
    });
    return { resent: resent.length, skipped_limit: counts.atLimit };
  })) as { resent: number; skipped_limit: number };
}

/** The endpoint, when it is a live endpoint of the workspace; else not found. */
async function endpointOf(deps: LogDeps, input: ResendFailedInput) {
  checkLogTime('since', input.since);
  const endpoint = isUuid(input.endpointId) ? await readEndpoint(deps.sql, { endpointId: input.endpointId }) : null;
  if (!endpoint || endpoint.workspace_id !== input.workspaceId) throw notFound(`endpoint ${input.endpointId}`);
  return endpoint;
}
