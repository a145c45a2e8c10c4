import { randomUUID } from 'node:crypto';
import type { Sql } from '../../db/connect.js';
import { MANAGER_ROLES, requireRole, requireWorkspace } from '../../domain/accounts.js';
import { writeAudit, type AuditSource } from '../../domain/audit.js';
import { DomainError, domainError, invalidInput, notFound } from '../../domain/errors.js';
import { isUuid } from '../../domain/validate.js';
import { requireEndpointAddress } from '../transport/endpoint-address.js';
import { pingBody } from '../engine/body.js';
import { traceparentOf } from '../../telemetry/tracing.js';
import { OFFER_WEBHOOK_TYPES, type OfferWebhookType } from '../../domain/outbox.js';
import {
  MAX_ATTEMPTS,
  MAX_ENDPOINTS_PER_WORKSPACE,
  MAX_OPEN_DELIVERIES_PER_ENDPOINT,
  MAX_TEST_EVENTS_PER_WINDOW,
  MAX_WORKSPACES_PER_ACCOUNT,
  TEST_EVENT_WINDOW_MS,
} from '../engine/policy.js';
import { generateEndpointSecret, sealSecret, SECRET_KEY_BYTES } from '../../sealing/secrets.js';
import type { ManagementDeps } from './deps.js';
import { toEndpointView, type EndpointView } from './endpoint-view.js';
import { secretKey } from '../transport/signing.js';
import { requireDevListen, withDevListen } from './dev-listen-rules.js';
import { countEndpointLimits } from '../sql/countEndpointLimits.js';
import { insertDevListen, type DevListenTarget } from '../sql/devListen.js';
import { countRecentTests } from '../sql/countRecentTests.js';
import { dropWaitingEvents } from '../sql/dropWaitingEvents.js';
import { insertDeliveries } from '../sql/insertDeliveries.js';
import { insertEndpoint } from '../sql/insertEndpoint.js';
import { insertMessages } from '../sql/insertMessages.js';
import { joinFairnessQueue } from '../sql/joinFairnessQueue.js';
import { selectWorkspaceEndpoints } from '../sql/selectWorkspaceEndpoints.js';
import { lockEndpointCounts } from '../sql/lockEndpointCounts.js';
import { readEndpoint, type EndpointRow } from '../sql/readEndpoint.js';
import { markEndpointRemoved } from '../sql/markEndpointRemoved.js';
import { markEndpointActive } from '../sql/markEndpointActive.js';
import { updateEndpointSecret } from '../sql/updateEndpointSecret.js';

export { AddressRefused, requireEndpointAddress } from '../transport/endpoint-address.js';
export { managementDeps, type ManagementDeps } from './deps.js';
export { toEndpointView, type EndpointView } from './endpoint-view.js';

/**
 * Endpoint management (console-api.yaml "Webhook endpoints"). Changes are made by owners and
 * admins (`actorId`); members are refused. Reads take no actor: the CLI that calls them is the
 * operator's. Every refusal is a DomainError with a message for one line. Every change writes its
 * audit entry in its own transaction (`via`: the console, or by default the operator's CLI; the
 * actor is `actorId`). The delivery log is delivery-log.ts, changes in place endpoint-update.ts.
 */

/** openapi.yaml "Webhook events": every type but ping, which "cannot be subscribed to". */
export function parseEventTypes(types: readonly string[]): OfferWebhookType[] {
  const chosen = [...new Set(types.map((t) => t.trim()).filter(Boolean))];
  if (chosen.length === 0) throw invalidInput(`choose at least one event type: ${OFFER_WEBHOOK_TYPES.join(', ')}`);
  for (const type of chosen) {
    if (type === 'ping') throw invalidInput('ping cannot be subscribed to; use "endpoint test" to send one');
    if (!(OFFER_WEBHOOK_TYPES as readonly string[]).includes(type)) {
      throw invalidInput(`unknown event type "${type}"; choose from ${OFFER_WEBHOOK_TYPES.join(', ')}`);
    }
  }
  return chosen as OfferWebhookType[];
}

/** A secret of the shape generateEndpointSecret makes (console-api.yaml "Webhook endpoints": `whsec_<base64>`). */
function requireSecretForm(secret: string): string {
  let ok = false;
  try {
    ok = secretKey(secret).length === SECRET_KEY_BYTES;
  } catch {
    ok = false;
  }
  if (!ok) throw invalidInput(`a webhook secret must be whsec_ and the base64 of ${SECRET_KEY_BYTES} bytes`);
  return secret;
}

export async function requireEndpoint(sql: Sql, endpointId: string, forUpdate = false): Promise<EndpointRow> {
  const row = isUuid(endpointId) ? await readEndpoint(sql, { endpointId, forUpdate }) : null;
  if (!row) throw notFound(`endpoint ${endpointId}`);
  return row;
}

/**
 * Adds an endpoint and returns its secret, the only time it is shown. The address is checked
 * against every rule of console-api.yaml "Endpoint addresses" (https, port 443, public name resolving only to public addresses,
 * blocked domains, every workspace's custom offer domain); the limits of 5 endpoints per
 * workspace and 20 workspaces per creating account are checked under a lock.
 */
export async function addEndpoint(
  deps: ManagementDeps,
  input: {
    workspaceId: string;
    url: string;
    events: readonly string[];
    actorId: string | null;
    via?: AuditSource;
    /** `offerdesk listen` only: the loopback receiver this endpoint maps to (see dev-listen-rules.ts). */
    devListen?: DevListenTarget;
    /**
     * `offerdesk listen` only: the secret of its earlier runs, so a local receiver keeps verifying
     * with the secret it was started with. Every other endpoint gets a fresh one.
     */
    devListenSecret?: string;
  },
): Promise<{ id: string; secret: string }> {
  const { sql, clock } = deps;
  const workspace = await requireWorkspace(sql, input.workspaceId);
  await requireRole(sql, { workspaceId: workspace.id, accountId: input.actorId, roles: MANAGER_ROLES });
  const eventTypes = parseEventTypes(input.events);
  const rawUrl = typeof input.url === 'string' ? input.url.trim() : '';
  if (input.devListen) requireDevListen(deps.config, rawUrl);
  const url = await requireEndpointAddress(
    input.devListen ? { ...deps, config: withDevListen(deps.config, rawUrl, input.devListen) } : deps,
    rawUrl,
  );

  const secret = input.devListen && input.devListenSecret ? requireSecretForm(input.devListenSecret) : generateEndpointSecret();
  // The id is made here, not by the database: the sealed secret is bound to it.
  const endpointId = randomUUID();
  const secretSealed = sealSecret(deps.masterKey, endpointId, secret);
  const id = await sql.begin(async (tx) => {
    // The operator (no account) is bound by the per-workspace limit only.
    await lockEndpointCounts(tx, { workspaceId: workspace.id, accountId: input.actorId ?? undefined });
    const counts = await countEndpointLimits(tx, { workspaceId: workspace.id, accountId: input.actorId });
    if (counts.inWorkspace >= MAX_ENDPOINTS_PER_WORKSPACE) {
      throw domainError('OD_ERR_ENDPOINTS_PER_WORKSPACE', workspace.id, MAX_ENDPOINTS_PER_WORKSPACE);
    }
    if (!counts.accountHasEndpointHere && counts.workspacesOfAccount >= MAX_WORKSPACES_PER_ACCOUNT) {
      throw domainError('OD_ERR_WORKSPACES_PER_ACCOUNT', input.actorId, MAX_WORKSPACES_PER_ACCOUNT);
    }
    const now = clock.now();
    const row = await insertEndpoint(tx, {
      id: endpointId,
      workspaceId: workspace.id,
      url,
      eventTypes,
      secretSealed,
      createdBy: input.actorId,
      now,
    });
    if (input.devListen) await insertDevListen(tx, { endpointId: row.id, target: input.devListen, now });
    if (counts.inWorkspace === 0) await joinFairnessQueue(tx, { workspaceId: workspace.id, now });
    await writeAudit(tx, {
      workspaceId: workspace.id,
      actorId: input.actorId,
      via: input.via,
      action: 'endpoint.added',
      target: { type: 'endpoint', id: row.id },
      details: { url, events: eventTypes },
      at: now,
    });
    return row.id;
  });
  return { id: id as string, secret };
}

export async function listEndpoints(deps: ManagementDeps, input: { workspaceId: string }): Promise<EndpointView[]> {
  const workspace = await requireWorkspace(deps.sql, input.workspaceId);
  return (await selectWorkspaceEndpoints(deps.sql, { workspaceId: workspace.id })).map(toEndpointView);
}

export async function showEndpoint(deps: ManagementDeps, input: { endpointId: string }): Promise<EndpointView> {
  return toEndpointView(await requireEndpoint(deps.sql, input.endpointId));
}

/**
 * console-api.yaml "Webhook endpoints": a test sends a ping event. Allowed while paused, so an operator can
 * check a repaired receiver before resuming. Limit: 10 tests per 10 minutes per endpoint (a
 * sliding window): a test exercises one endpoint, and one endpoint's tests should not use up
 * those of the workspace's others. A ping is retried like any delivery but never counts toward
 * (or resets) the failure streak.
 */
export async function testEndpoint(
  deps: ManagementDeps,
  input: { endpointId: string; actorId: string | null; via?: AuditSource },
): Promise<{ delivery_id: string; webhook_id: string; status: string }> {
  const { sql, clock } = deps;
  const endpoint = await requireEndpoint(sql, input.endpointId);
  await requireRole(sql, { workspaceId: endpoint.workspace_id, accountId: input.actorId, roles: MANAGER_ROLES, target: `endpoint ${input.endpointId}` });
  return (await sql.begin(async (tx) => {
    // Serialises tests of this endpoint, so two at once cannot both pass the limit.
    if (!(await readEndpoint(tx, { endpointId: endpoint.id, forUpdate: true }))) throw notFound(`endpoint ${endpoint.id}`);
    const now = clock.now();
    const recent = await countRecentTests(tx, { endpointId: endpoint.id, since: new Date(now.getTime() - TEST_EVENT_WINDOW_MS) });
    if (recent >= MAX_TEST_EVENTS_PER_WINDOW) {
      throw domainError('OD_ERR_TEST_EVENTS', endpoint.id, MAX_TEST_EVENTS_PER_WINDOW, TEST_EVENT_WINDOW_MS / 60_000);
    }
    const id = randomUUID();
    // The ping's attempt links to the request that asked for it (tracing on), as an event's do.
    const ping = { id, workspaceId: endpoint.workspace_id, type: 'ping', body: pingBody({ id, at: now }).text, traceparent: traceparentOf(tx) };
    await insertMessages(tx, [ping], now);
    const [delivery] = await insertDeliveries(tx, {
      deliveries: [{ messageId: id, endpointId: endpoint.id }],
      isTest: true,
      maxAttempts: MAX_ATTEMPTS,
      maxOpenPerEndpoint: MAX_OPEN_DELIVERIES_PER_ENDPOINT,
      now,
    });
    await writeAudit(tx, {
      workspaceId: endpoint.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'endpoint.tested',
      target: { type: 'endpoint', id: endpoint.id },
      details: { delivery_id: delivery!.id, webhook_id: id },
      at: now,
    });
    return { delivery_id: delivery!.id, webhook_id: id, status: delivery!.status };
  })) as { delivery_id: string; webhook_id: string; status: string };
}

/** console-api.yaml "Webhook endpoints": a new secret invalidates the old one immediately. Shown once. */
export async function rotateSecret(
  deps: ManagementDeps,
  input: { endpointId: string; actorId: string | null; via?: AuditSource },
): Promise<{ secret: string }> {
  const endpoint = await requireEndpoint(deps.sql, input.endpointId);
  await requireRole(deps.sql, { workspaceId: endpoint.workspace_id, accountId: input.actorId, roles: MANAGER_ROLES, target: `endpoint ${input.endpointId}` });
  const secret = generateEndpointSecret();
  const secretSealed = sealSecret(deps.masterKey, endpoint.id, secret);
  await deps.sql.begin(async (tx) => {
    const now = deps.clock.now();
    if (!(await updateEndpointSecret(tx, { endpointId: endpoint.id, secretSealed, now }))) throw notFound(`endpoint ${input.endpointId}`);
    await writeAudit(tx, {
      workspaceId: endpoint.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'endpoint.secret_rotated',
      target: { type: 'endpoint', id: endpoint.id },
      at: now,
    });
  });
  return { secret };
}

/** Active again, streak 0; events of the paused time are not delivered (openapi.yaml "Webhook delivery and retries"). */
export async function resumeEndpoint(
  deps: ManagementDeps,
  input: { endpointId: string; actorId: string | null; via?: AuditSource },
): Promise<EndpointView> {
  const endpoint = await requireEndpoint(deps.sql, input.endpointId);
  await requireRole(deps.sql, { workspaceId: endpoint.workspace_id, accountId: input.actorId, roles: MANAGER_ROLES, target: `endpoint ${input.endpointId}` });
  await deps.sql.begin(async (tx) => {
    const now = deps.clock.now();
    if (!(await markEndpointActive(tx, { endpointId: endpoint.id, now }))) throw notFound(`endpoint ${input.endpointId}`);
    await writeAudit(tx, {
      workspaceId: endpoint.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'endpoint.resumed',
      target: { type: 'endpoint', id: endpoint.id },
      details: { was: endpoint.state },
      at: now,
    });
  });
  return showEndpoint(deps, { endpointId: endpoint.id });
}

/**
 * Removes the endpoint: it receives nothing more and its open deliveries are cancelled. When it
 * was the workspace's last endpoint, the workspace's waiting events are dropped (docs/webhook-delivery.md
 * "Limits").
 */
export async function removeEndpoint(
  deps: ManagementDeps,
  input: { endpointId: string; actorId: string | null; via?: AuditSource },
): Promise<{ id: string; removed: true; cancelled_deliveries: number; dropped_events: number }> {
  const endpoint = await requireEndpoint(deps.sql, input.endpointId);
  await requireRole(deps.sql, { workspaceId: endpoint.workspace_id, accountId: input.actorId, roles: MANAGER_ROLES, target: `endpoint ${input.endpointId}` });
  return (await deps.sql.begin(async (tx) => {
    await lockEndpointCounts(tx, { workspaceId: endpoint.workspace_id });
    const now = deps.clock.now();
    const cancelled = await markEndpointRemoved(tx, { endpointId: endpoint.id, now });
    const left = await countEndpointLimits(tx, { workspaceId: endpoint.workspace_id, accountId: null });
    const dropped = left.inWorkspace === 0 ? await dropWaitingEvents(tx, { workspaceId: endpoint.workspace_id }) : 0;
    await writeAudit(tx, {
      workspaceId: endpoint.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'endpoint.removed',
      target: { type: 'endpoint', id: endpoint.id },
      details: { url: endpoint.url, cancelled_deliveries: cancelled, dropped_events: dropped },
      at: now,
    });
    return { id: endpoint.id, removed: true as const, cancelled_deliveries: cancelled, dropped_events: dropped };
  })) as { id: string; removed: true; cancelled_deliveries: number; dropped_events: number };
}

export { DomainError };
