import { MANAGER_ROLES, requireRole } from '../domain/accounts.js';
import { invalidInput, notFound } from '../domain/errors.js';
import { isUuid } from '../domain/validate.js';
import { checkEndpointAddress } from './address-rules.js';
import { parseEventTypes, showEndpoint, type EndpointView, type ManagementDeps } from './management.js';
import { pauseEndpoint as pauseEndpointRow } from './sql/pauseEndpoint.js';
import { readDevListenTargets } from './sql/devListen.js';
import { readEndpoint, type EndpointRow } from './sql/readEndpoint.js';
import { readOfferDomains } from './sql/readOfferDomains.js';
import { updateEndpointSettings } from './sql/updateEndpointSettings.js';

/**
 * Changing an endpoint in place (SPEC.md "Webhook endpoint management": owners and admins manage
 * endpoints): a new address or new event types, and pausing by hand. The secret stays.
 */

async function requireManagedEndpoint(deps: ManagementDeps, endpointId: string, actorId: string): Promise<EndpointRow> {
  const row = isUuid(endpointId) ? await readEndpoint(deps.sql, { endpointId }) : null;
  if (!row) throw notFound(`endpoint ${endpointId}`);
  await requireRole(deps.sql, { workspaceId: row.workspace_id, accountId: actorId, roles: MANAGER_ROLES });
  return row;
}

/**
 * A new address passes every address rule, as at creation. Deliveries already queued go to the
 * new address from their next attempt on (each attempt reads the endpoint's current address).
 */
export async function updateEndpoint(
  deps: ManagementDeps,
  input: { endpointId: string; actorId: string; url?: string; events?: readonly string[] },
): Promise<EndpointView> {
  if (input.url === undefined && input.events === undefined) throw invalidInput('give --url or --events (or both)');
  const endpoint = await requireManagedEndpoint(deps, input.endpointId, input.actorId);
  const eventTypes = input.events === undefined ? null : parseEventTypes(input.events);
  let url: string | null = null;
  if (input.url !== undefined) {
    if ((await readDevListenTargets(deps.sql, [endpoint.id])).size > 0) {
      throw invalidInput('this endpoint belongs to "offerdesk listen"; its address cannot change (add another endpoint instead)');
    }
    url = input.url.trim();
    const verdict = await checkEndpointAddress(url, {
      config: deps.config,
      customOfferDomains: await readOfferDomains(deps.sql),
      resolver: deps.resolver,
    });
    if (!verdict.ok) throw invalidInput(`endpoint address refused: ${verdict.reason}`);
  }
  if (!(await updateEndpointSettings(deps.sql, { endpointId: endpoint.id, url, eventTypes, now: deps.clock.now() }))) {
    throw notFound(`endpoint ${input.endpointId}`);
  }
  return showEndpoint(deps, { endpointId: endpoint.id });
}

/**
 * Paused by hand exactly as after 5 final failures (SPEC.md "Delivery, retries, pause"): open
 * deliveries are cancelled, events of the paused time are never delivered, `resume` ends it.
 * Pausing a paused endpoint changes nothing.
 */
export async function pauseEndpoint(
  deps: ManagementDeps,
  input: { endpointId: string; actorId: string },
): Promise<EndpointView & { cancelled_deliveries: number }> {
  const endpoint = await requireManagedEndpoint(deps, input.endpointId, input.actorId);
  const { cancelled } = await pauseEndpointRow(deps.sql, { endpointId: endpoint.id, now: deps.clock.now() });
  return { ...(await showEndpoint(deps, { endpointId: endpoint.id })), cancelled_deliveries: cancelled };
}
