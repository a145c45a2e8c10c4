import { MANAGER_ROLES, requireRole } from '../../domain/accounts.js';
import { writeAudit, type AuditSource } from '../../domain/audit.js';
import { invalidInput, notFound } from '../../domain/errors.js';
import {
  parseEventTypes,
  requireEndpoint,
  requireEndpointAddress,
  showEndpoint,
  type EndpointView,
  type ManagementDeps,
} from './endpoints.js';
import { readDevListenTargets } from '../sql/devListen.js';
import { markEndpointPaused } from '../sql/markEndpointPaused.js';
import { readEndpoint } from '../sql/readEndpoint.js';
import { setEndpointUrlAndEvents } from '../sql/setEndpointUrlAndEvents.js';

/**
 * Changing an endpoint in place: a new address or new event types, and pausing by hand.
 */

/**
 * Changes an endpoint's address or event types (owners and admins). A new address passes the
 * same rules as when adding one (console-api.yaml "Endpoint addresses");
 * the secret, state and delivery log stay. Deliveries already queued keep the address they had
 * when sent: the next attempt goes to the new address.
 */
export async function updateEndpoint(
  deps: ManagementDeps,
  input: { endpointId: string; url?: string; events?: readonly string[]; actorId: string | null; via?: AuditSource },
): Promise<EndpointView> {
  const endpoint = await requireEndpoint(deps.sql, input.endpointId);
  await requireRole(deps.sql, { workspaceId: endpoint.workspace_id, accountId: input.actorId, roles: MANAGER_ROLES, target: `endpoint ${input.endpointId}` });
  if (input.url === undefined && input.events === undefined) throw invalidInput('change the url, the events, or both');
  if (input.url !== undefined && (await readDevListenTargets(deps.sql, [endpoint.id])).size > 0) {
    throw invalidInput('this endpoint belongs to "offerdesk listen"; its address cannot change (add another endpoint instead)');
  }
  const url = input.url === undefined ? null : await requireEndpointAddress(deps, input.url);
  const eventTypes = input.events === undefined ? null : parseEventTypes(input.events);
  await deps.sql.begin(async (tx) => {
    const before = await readEndpoint(tx, { endpointId: endpoint.id, forUpdate: true });
    if (!before) throw notFound(`endpoint ${input.endpointId}`);
    const now = deps.clock.now();
    await setEndpointUrlAndEvents(tx, { endpointId: endpoint.id, url, eventTypes, now });
    const details: Record<string, string | string[]> = {};
    if (url !== null && url !== before.url) Object.assign(details, { url_before: before.url, url });
    if (eventTypes !== null) Object.assign(details, { events_before: before.event_types, events: eventTypes });
    await writeAudit(tx, {
      workspaceId: endpoint.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'endpoint.updated',
      target: { type: 'endpoint', id: endpoint.id },
      details,
      at: now,
    });
  });
  return showEndpoint(deps, { endpointId: endpoint.id });
}

/**
 * Paused by hand exactly as after 5 final failures (openapi.yaml "Webhook delivery and retries"): open
 * deliveries are cancelled, events of the paused time are never delivered, `resume` ends it.
 * Pausing a paused endpoint changes nothing and writes no audit entry. Owners and admins, or the
 * operator (actor null).
 */
export async function pauseEndpoint(
  deps: ManagementDeps,
  input: { endpointId: string; actorId: string | null; via?: AuditSource },
): Promise<EndpointView & { cancelled_deliveries: number }> {
  const endpoint = await requireEndpoint(deps.sql, input.endpointId);
  await requireRole(deps.sql, {
    workspaceId: endpoint.workspace_id,
    accountId: input.actorId,
    roles: MANAGER_ROLES,
    target: `endpoint ${input.endpointId}`,
  });
  const cancelled = await deps.sql.begin(async (tx) => {
    const now = deps.clock.now();
    const result = await markEndpointPaused(tx, { endpointId: endpoint.id, now, reason: 'manual' });
    if (!result.paused) return 0;
    await writeAudit(tx, {
      workspaceId: endpoint.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'endpoint.paused',
      target: { type: 'endpoint', id: endpoint.id },
      details: { reason: 'manual', cancelled_deliveries: result.cancelled },
      at: now,
    });
    return result.cancelled;
  });
  return { ...(await showEndpoint(deps, { endpointId: endpoint.id })), cancelled_deliveries: cancelled };
}
