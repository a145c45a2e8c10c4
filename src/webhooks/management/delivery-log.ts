import { MANAGER_ROLES, requireRole } from '../../domain/accounts.js';
import { writeAudit, type AuditSource } from '../../domain/audit.js';
import { domainError, invalidInput, invalidTransition, notFound } from '../../domain/errors.js';
import { isUuid } from '../../domain/validate.js';
import type { ManagementDeps } from './deps.js';
import { MAX_OPEN_DELIVERIES_PER_ENDPOINT, MAX_RESENDS } from '../engine/policy.js';
import { endpointExists } from '../sql/endpointExists.js';
import { countOpenDeliveries } from '../sql/countOpenDeliveries.js';
import { listAttempts } from '../sql/listAttempts.js';
import {
  DELIVERY_STATUSES,
  listDeliveries as listDeliveryRows,
  type DeliveryRow,
  type DeliveryStatus,
} from '../sql/listDeliveries.js';
import { readDelivery } from '../sql/readDelivery.js';
import { readEndpoint } from '../sql/readEndpoint.js';
import { resendDelivery as resendDeliveryRow } from '../sql/resendDelivery.js';

/** The delivery log of SPEC.md "Webhook endpoint management": list, show, resend. */

export const DEFAULT_DELIVERY_LIST_LIMIT = 50;
export const MAX_DELIVERY_LIST_LIMIT = 1000;

export interface DeliveryView {
  id: string;
  endpoint_id: string;
  /** The webhook-id header and the body's `id`; identical on every retry and resend. */
  webhook_id: string;
  type: string;
  status: DeliveryStatus;
  attempt_count: number;
  /** When the next attempt is due; null unless pending. */
  next_attempt_at: string | null;
  resend_count: number;
  test: boolean;
  /** Why it ended without (further) attempts: endpoint_queue_full, endpoint_paused, endpoint_removed. */
  failure_reason: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface AttemptView {
  attempt: number;
  attempted_at: string;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_prefix: string | null;
}

export interface DeliveryDetail extends DeliveryView {
  attempts: AttemptView[];
  /** The exact body sent on every attempt. */
  body: string;
}

function toDeliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    webhook_id: row.message_id,
    type: row.type,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.status === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    resend_count: row.resend_count,
    test: row.is_test,
    failure_reason: row.failure_reason,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at ? row.finished_at.toISOString() : null,
  };
}

export async function listDeliveries(
  deps: ManagementDeps,
  input: { endpointId: string; status?: string | null; limit?: number },
): Promise<DeliveryView[]> {
  const status = input.status ?? null;
  if (status !== null && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
    throw invalidInput(`status must be one of ${DELIVERY_STATUSES.join(', ')}, got "${status}"`);
  }
  const limit = input.limit ?? DEFAULT_DELIVERY_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERY_LIST_LIMIT) {
    throw invalidInput(`limit must be a whole number from 1 to ${MAX_DELIVERY_LIST_LIMIT}`);
  }
  // The log of a removed endpoint stays readable until retention deletes it.
  if (!isUuid(input.endpointId) || !(await endpointExists(deps.sql, { endpointId: input.endpointId }))) throw notFound(`endpoint ${input.endpointId}`);
  const rows = await listDeliveryRows(deps.sql, { endpointId: input.endpointId, status: status as DeliveryStatus | null, limit });
  return rows.map(toDeliveryView);
}

export async function showDelivery(deps: ManagementDeps, input: { deliveryId: string }): Promise<DeliveryDetail> {
  const row = isUuid(input.deliveryId) ? await readDelivery(deps.sql, { deliveryId: input.deliveryId }) : null;
  if (!row) throw notFound(`delivery ${input.deliveryId}`);
  const attempts = await listAttempts(deps.sql, { deliveryId: row.id });
  return {
    ...toDeliveryView(row),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attempted_at.toISOString(),
      succeeded: a.succeeded,
      status_code: a.status_code,
      error: a.error,
      duration_ms: a.duration_ms,
      response_prefix: a.response_prefix,
    })),
    body: row.body,
  };
}

/**
 * Resend from the delivery log (SPEC.md "Delivery, retries, pause": "It can be resent from the
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
 */
export async function resendDelivery(
  deps: ManagementDeps,
  input: { deliveryId: string; actorId: string | null; via?: AuditSource },
): Promise<DeliveryView> {
  const first = isUuid(input.deliveryId) ? await readDelivery(deps.sql, { deliveryId: input.deliveryId }) : null;
  if (!first) throw notFound(`delivery ${input.deliveryId}`);
  await requireRole(deps.sql, { workspaceId: first.workspace_id, accountId: input.actorId, roles: MANAGER_ROLES, target: `delivery ${input.deliveryId}` });
  await deps.sql.begin(async (tx) => {
    const row = await readDelivery(tx, { deliveryId: first.id, forUpdate: true });
    if (!row) throw notFound(`delivery ${input.deliveryId}`);
    if (row.status === 'pending' || row.status === 'sending') {
      throw invalidTransition(`delivery ${row.id} is still ${row.status}; only a finished delivery can be resent`);
    }
    if (row.resend_count >= MAX_RESENDS) {
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
    await resendDeliveryRow(tx, { deliveryId: row.id, now });
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
  const after = await readDelivery(deps.sql, { deliveryId: first.id });
  return toDeliveryView(after!);
}
