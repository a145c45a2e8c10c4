import { sendJson } from '../../http/respond.js';
import { FAILURES_IN_A_ROW_TO_PAUSE } from '../../webhooks/engine/policy.js';
import { selectWorkspaceEndpoints } from '../../webhooks/sql/selectWorkspaceEndpoints.js';
import { readEndpoint } from '../../webhooks/sql/readEndpoint.js';
import {
  addEndpoint,
  AddressRefused,
  removeEndpoint as removeEndpointDomain,
  resumeEndpoint as resumeEndpointDomain,
  rotateSecret,
  showEndpoint,
  testEndpoint as testEndpointDomain,
  toEndpointView,
  type EndpointView,
} from '../../webhooks/management/endpoints.js';
import { updateEndpoint as updateEndpointDomain } from '../../webhooks/management/endpoint-update.js';
import { requireManager, requireReader } from '../access.js';
import { signedIn, type ConsoleHandlerTable, type ConsoleRequest } from '../context.js';
import { endpointDetails } from '../endpoint-details.js';
import { refuse } from '../errors.js';
import { body, pageOf, pageRequest, pathParam } from './paging.js';

/**
 * Webhook endpoints of a workspace (console-api.yaml "Webhook endpoints"): any member reads;
 * owners and admins change them through the same domain functions as the CLI, so the limits and
 * address rules hold here exactly as there.
 */
const LIST = 'endpoints';

async function views(request: ConsoleRequest, endpoints: EndpointView[]) {
  const details = await endpointDetails(request.deps.sql, endpoints, request.deps.clock.now());
  return endpoints.map((e) => ({
    id: e.id,
    url: e.url,
    events: e.events,
    state: e.state,
    paused_at: e.paused_at,
    paused_reason: details.get(e.id)!.paused_reason,
    health: details.get(e.id)!.health,
    failing_since: details.get(e.id)!.failing_since,
    failure_streak: e.failure_streak,
    failure_streak_limit: FAILURES_IN_A_ROW_TO_PAUSE,
    created_at: e.created_at,
    updated_at: e.updated_at,
    stats: details.get(e.id)!.stats,
  }));
}

async function one(request: ConsoleRequest, endpointId: string) {
  const [view] = await views(request, [await showEndpoint(request.deps.manage(), { endpointId })]);
  return view!;
}

/** The endpoint named in the path, when it belongs to the workspace in the path; else 404. */
async function endpointOfWorkspace(request: ConsoleRequest, mode: 'read' | 'change'): Promise<{ workspaceId: string; endpointId: string }> {
  const workspaceId = pathParam(request, 'workspaceId');
  const endpointId = pathParam(request, 'endpointId');
  const accountId = signedIn(request).account.id;
  await (mode === 'read' ? requireReader : requireManager)(request.deps.sql, accountId, workspaceId);
  const row = await readEndpoint(request.deps.sql, { endpointId });
  if (!row || row.workspace_id !== workspaceId) throw refuse.notFound();
  return { workspaceId, endpointId };
}

/** An address refused by a rule is answered at its field, in the rule's words. */
function addressAtField(error: unknown): never {
  if (error instanceof AddressRefused) throw refuse.invalid(`${error.reason.charAt(0).toUpperCase()}${error.reason.slice(1)}.`, 'url');
  throw error;
}

async function listEndpoints(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  const page = pageRequest(request, LIST, workspaceId);
  // Oldest first; at most 5 live endpoints per workspace, so the page is cut in memory.
  const all = (await selectWorkspaceEndpoints(request.deps.sql, { workspaceId })).map(toEndpointView);
  const after = page.after;
  const rest = after ? all.filter((e) => e.created_at > after.createdAt || (e.created_at === after.createdAt && e.id > after.id)) : all;
  const viewed = await views(request, rest.slice(0, page.limit + 1));
  sendJson(request.res, 200, pageOf(request, { list: LIST, workspaceId, limit: page.limit, rows: viewed, key: (v) => v.created_at, view: (v) => v }));
}

async function createEndpoint(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const accountId = signedIn(request).account.id;
  await requireManager(request.deps.sql, accountId, workspaceId);
  const input = body<{ url: string; events: string[] }>(request);
  const created = await addEndpoint(request.deps.manage({ sealing: true }), {
    workspaceId,
    url: input.url,
    events: input.events,
    actorId: accountId,
    via: request.via,
  }).catch(addressAtField);
  sendJson(request.res, 201, { data: { ...(await one(request, created.id)), secret: created.secret } });
}

async function getEndpoint(request: ConsoleRequest): Promise<void> {
  const { endpointId } = await endpointOfWorkspace(request, 'read');
  sendJson(request.res, 200, { data: await one(request, endpointId) });
}

async function updateEndpoint(request: ConsoleRequest): Promise<void> {
  const { endpointId } = await endpointOfWorkspace(request, 'change');
  const input = body<{ url?: string; events?: string[] }>(request);
  await updateEndpointDomain(request.deps.manage(), {
    endpointId,
    url: input.url,
    events: input.events,
    actorId: signedIn(request).account.id,
    via: request.via,
  }).catch(addressAtField);
  sendJson(request.res, 200, { data: await one(request, endpointId) });
}

async function removeEndpoint(request: ConsoleRequest): Promise<void> {
  const { endpointId } = await endpointOfWorkspace(request, 'change');
  const removed = await removeEndpointDomain(request.deps.manage(), { endpointId, actorId: signedIn(request).account.id, via: request.via });
  sendJson(request.res, 200, {
    data: { id: removed.id, cancelled_deliveries: removed.cancelled_deliveries, dropped_events: removed.dropped_events },
  });
}

async function testEndpoint(request: ConsoleRequest): Promise<void> {
  const { endpointId } = await endpointOfWorkspace(request, 'change');
  const test = await testEndpointDomain(request.deps.manage(), { endpointId, actorId: signedIn(request).account.id, via: request.via });
  sendJson(request.res, 202, { data: { delivery_id: test.delivery_id, webhook_id: test.webhook_id } });
}

async function rotateEndpointSecret(request: ConsoleRequest): Promise<void> {
  const { endpointId } = await endpointOfWorkspace(request, 'change');
  const rotated = await rotateSecret(request.deps.manage({ sealing: true }), {
    endpointId,
    actorId: signedIn(request).account.id,
    via: request.via,
  });
  sendJson(request.res, 200, { data: { secret: rotated.secret } });
}

async function resumeEndpoint(request: ConsoleRequest): Promise<void> {
  const { endpointId } = await endpointOfWorkspace(request, 'change');
  await resumeEndpointDomain(request.deps.manage(), { endpointId, actorId: signedIn(request).account.id, via: request.via });
  sendJson(request.res, 200, { data: await one(request, endpointId) });
}

export const endpointHandlers: ConsoleHandlerTable = {
  listEndpoints,
  createEndpoint,
  getEndpoint,
  updateEndpoint,
  removeEndpoint,
  testEndpoint,
  rotateEndpointSecret,
  resumeEndpoint,
};
