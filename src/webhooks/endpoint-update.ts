import { MANAGER_ROLES, requireRole } from '../domain/accounts.js';
import { writeAudit, type AuditSource } from '../domain/audit.js';
import { invalidInput, notFound } from '../domain/errors.js';
import {
  parseEventTypes,
  requireEndpoint,
  requireEndpointAddress,
  showEndpoint,
  type EndpointView,
  type ManagementDeps,
} from './management.js';
import { readDevListenTargets } from './sql/devListen.js';
import { readEndpoint } from './sql/readEndpoint.js';
import { updateEndpoint as updateEndpointRow } from './sql/updateEndpoint.js';

/**
 * Changes an endpoint's address or event types (owners and admins). A new address passes the
 * same rules as when adding one (SPEC.md "Webhook endpoint management" "Address requirements");
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
    await updateEndpointRow(tx, { endpointId: endpoint.id, url, eventTypes, now });
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
