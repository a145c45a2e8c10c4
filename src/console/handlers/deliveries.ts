import { createHash } from 'node:crypto';
import { sendJson } from '../../http/respond.js';
import { DomainError } from '../../domain/errors.js';
import {
  checkLogTime,
  listDeliveryLogPage,
  showDeliveryLogEntry,
  showDeliveryLogView,
  type LogDeps,
  type LogQuery,
} from '../../webhooks/management/delivery-log.js';
import {
  previewResendFailed as previewDomain,
  resendDelivery as resendDeliveryDomain,
  resendFailed as resendFailedDomain,
} from '../../webhooks/management/resend.js';
import { requireManager, requireReader } from '../access.js';
import { signedIn, type ConsoleHandlerTable, type ConsoleRequest } from '../context.js';
import { refuse } from '../errors.js';
import { body, pageOf, pageRequest, pathParam } from './paging.js';

/**
 * The delivery log (console-api.yaml "Webhook endpoints": "resend a delivery from the delivery
 * log"): any member reads it; owners and admins resend, through the same domain functions as the
 * CLI, so the limit of 5 resends per delivery holds here as there.
 */

function logDeps(request: ConsoleRequest): LogDeps {
  const { sql, clock, config } = request.deps;
  return { sql, clock, config: config.webhooks };
}

function text(query: Record<string, unknown>, name: string): string | null {
  const value = query[name];
  return typeof value === 'string' ? value : null;
}

/** A time parameter or field, refused at its name when the database cannot hold it (year 0). */
function time(value: string | null, name: string): Date | null {
  if (value === null) return null;
  try {
    return checkLogTime(name, new Date(value));
  } catch (error) {
    if (error instanceof DomainError) throw refuse.invalid(`${name} must be an ISO 8601 date-time from year 1 on.`, name);
    throw error;
  }
}

function date(query: Record<string, unknown>, name: string): Date | null {
  return time(text(query, name), name);
}

/**
 * A cursor belongs to one walk: the list's name carries a digest of the filters, so a cursor
 * sent with other filters is refused like a damaged one (openapi.yaml "Pagination").
 */
function listName(filter: LogQuery): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([filter.status, filter.eventType, filter.endpointId, filter.since?.toISOString(), filter.until?.toISOString(), filter.q]))
    .digest('base64url')
    .slice(0, 16);
  return `deliveries:${digest}`;
}

async function listDeliveries(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  const query = request.c.request.query as Record<string, unknown>;
  const filter: LogQuery = {
    workspaceId,
    status: text(query, 'status'),
    eventType: text(query, 'event_type'),
    endpointId: text(query, 'endpoint_id')?.toLowerCase() ?? null,
    since: date(query, 'since'),
    until: date(query, 'until'),
    q: text(query, 'q')?.toLowerCase() ?? null,
  };
  const list = listName(filter);
  const page = pageRequest(request, list, workspaceId);
  const { rows } = await listDeliveryLogPage(logDeps(request), { ...filter, after: page.after, limit: page.limit + 1 });
  sendJson(
    request.res,
    200,
    pageOf(request, { list, workspaceId, limit: page.limit, rows, key: (row) => row.key, view: (row) => row.view }),
  );
}

async function getDelivery(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  const detail = await showDeliveryLogEntry(logDeps(request), { workspaceId, deliveryId: pathParam(request, 'deliveryId') });
  sendJson(request.res, 200, { data: detail });
}

async function resendDelivery(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const accountId = signedIn(request).account.id;
  await requireManager(request.deps.sql, accountId, workspaceId);
  const deliveryId = pathParam(request, 'deliveryId');
  // Not found unless the delivery is of this workspace.
  await showDeliveryLogView(logDeps(request), { workspaceId, deliveryId });
  const view = await resendDeliveryDomain(logDeps(request), { deliveryId, actorId: accountId, via: request.via });
  sendJson(request.res, 200, { data: view });
}

async function previewResendFailed(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  const since = date(request.c.request.query as Record<string, unknown>, 'since')!;
  const preview = await previewDomain(logDeps(request), { workspaceId, endpointId: pathParam(request, 'endpointId'), since });
  sendJson(request.res, 200, { data: { count: preview.count, since: since.toISOString() } });
}

async function resendFailed(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const accountId = signedIn(request).account.id;
  await requireManager(request.deps.sql, accountId, workspaceId);
  const since = time(body<{ since: string }>(request).since, 'since')!;
  const result = await resendFailedDomain(logDeps(request), {
    workspaceId,
    endpointId: pathParam(request, 'endpointId'),
    since,
    actorId: accountId,
    via: request.via,
  });
  sendJson(request.res, 200, { data: result });
}

export const deliveryHandlers: ConsoleHandlerTable = {
  listDeliveries,
  getDelivery,
  resendDelivery,
  previewResendFailed,
  resendFailed,
};
