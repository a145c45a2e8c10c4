import type { Clock } from '../../clock.js';
import type { WebhookConfig } from '../../config.js';
import type { Sql } from '../../db/connect.js';
import { invalidInput, notFound } from '../../domain/errors.js';
import { isUuid } from '../../domain/validate.js';
import { unsignedHeaders, webhookTimestamp } from '../transport/headers.js';
import { MAX_RESENDS, START_RATE_WINDOW_MS, maxInFlightPerEndpoint } from '../engine/policy.js';
import { listAttempts } from '../sql/listAttempts.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../delivery.js';
import { listDeliveryLog, type LogFilter, type LogRow } from '../sql/listDeliveryLog.js';
import { readDelivery } from '../sql/readDelivery.js';
import { readWaitingFacts } from '../sql/readWaitingFacts.js';
import { waitingReason, type WaitingReason } from '../engine/waiting.js';

/**
 * The delivery log, the one read behind the console's pages and the CLI's `delivery list` and
 * `delivery show` (console-api.yaml "Webhook endpoints": "resend a delivery from the delivery
 * log"): a workspace's deliveries newest first with filters, each with its last response status,
 * its next attempt and why a waiting one waits, and one delivery with its exact body, headers and
 * attempts. Reads only; the caller has checked that the account may read the workspace. Anything
 * of another workspace is not found.
 */
export interface LogDeps {
  sql: Sql;
  clock: Clock;
  /** The worker settings the waiting reasons are stated against (start rate, concurrency). */
  config: WebhookConfig;
}

export interface DeliveryLogView {
  id: string;
  webhook_id: string;
  type: string;
  offer_id: string | null;
  endpoint: { id: string; url: string };
  status: DeliveryStatus;
  attempt_count: number;
  max_attempts: number;
  resend_count: number;
  resend_limit: number;
  last_response_status: number | null;
  created_at: string;
  next_attempt_at: string | null;
  waiting_reason: WaitingReason | null;
  failure_reason: string | null;
  test: boolean;
}

export interface DeliveryLogDetail extends DeliveryLogView {
  body: string;
  headers: Record<string, string>;
  attempts: {
    attempt: number;
    attempted_at: string;
    succeeded: boolean;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
    response_prefix: string | null;
  }[];
}

export interface LogQuery {
  workspaceId: string;
  status?: string | null;
  eventType?: string | null;
  endpointId?: string | null;
  since?: Date | null;
  until?: Date | null;
  q?: string | null;
}

/** A page: each row's view and its keyset position (for the cursor). */
export interface LogPage {
  rows: { id: string; key: string; view: DeliveryLogView }[];
}

/**
 * A time the database can compare with: a valid date from year 1 on (PostgreSQL has no year 0,
 * which ISO 8601 and JavaScript accept). The reason names the parameter.
 */
export function checkLogTime(name: string, value: Date | null | undefined): Date | null {
  if (value == null) return null;
  if (Number.isNaN(value.getTime()) || value.getUTCFullYear() < 1) {
    throw invalidInput(`${name} must be an ISO 8601 date-time from year 1 on`);
  }
  return value;
}

function filterOf(query: LogQuery): LogFilter {
  const status = query.status ?? null;
  if (status !== null && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
    throw invalidInput(`status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  for (const [name, value] of [['endpoint_id', query.endpointId], ['q', query.q]] as const) {
    if (value != null && !isUuid(value)) throw invalidInput(`${name} must be a UUID`);
  }
  return {
    workspaceId: query.workspaceId,
    status: status as DeliveryStatus | null,
    eventType: query.eventType ?? null,
    endpointId: query.endpointId?.toLowerCase() ?? null,
    since: checkLogTime('since', query.since),
    until: checkLogTime('until', query.until),
    q: query.q?.toLowerCase() ?? null,
  };
}

export async function listDeliveryLogPage(
  deps: LogDeps,
  query: LogQuery & { after: { createdAt: string; id: string } | null; limit: number },
): Promise<LogPage> {
  const rows = await listDeliveryLog(deps.sql, { ...filterOf(query), after: query.after, limit: query.limit });
  const views = await toViews(deps, query.workspaceId, rows);
  return { rows: rows.map((row, i) => ({ id: row.id, key: row.created_at_key, view: views[i]! })) };
}

/** `offerdesk delivery list --limit`: its default and its largest value. */
export const DEFAULT_DELIVERY_LIST_LIMIT = 50;
export const MAX_DELIVERY_LIST_LIMIT = 1000;

/** One endpoint's deliveries, newest first, optionally of one status: the first page of the log. */
export async function listEndpointDeliveries(
  deps: LogDeps,
  input: { workspaceId: string; endpointId: string; status?: string | null; limit?: number },
): Promise<DeliveryLogView[]> {
  const limit = input.limit ?? DEFAULT_DELIVERY_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERY_LIST_LIMIT) {
    throw invalidInput(`limit must be a whole number from 1 to ${MAX_DELIVERY_LIST_LIMIT}`);
  }
  const { workspaceId, endpointId, status } = input;
  const { rows } = await listDeliveryLogPage(deps, { workspaceId, endpointId, status, after: null, limit });
  return rows.map((row) => row.view);
}

/** One delivery's row of the log (no body, headers or attempts): what a resend answers with. */
export async function showDeliveryLogView(deps: LogDeps, input: { workspaceId: string; deliveryId: string }): Promise<DeliveryLogView> {
  return (await readLogRow(deps, input)).view;
}

async function readLogRow(deps: LogDeps, input: { workspaceId: string; deliveryId: string }): Promise<{ row: LogRow; view: DeliveryLogView }> {
  const [row] = isUuid(input.deliveryId)
    ? await listDeliveryLog(deps.sql, { ...filterOf({ workspaceId: input.workspaceId }), deliveryId: input.deliveryId, after: null, limit: 1 })
    : [];
  if (!row) throw notFound(`delivery ${input.deliveryId}`);
  const [view] = await toViews(deps, input.workspaceId, [row]);
  return { row, view: view! };
}

export async function showDeliveryLogEntry(deps: LogDeps, input: { workspaceId: string; deliveryId: string }): Promise<DeliveryLogDetail> {
  const { row, view } = await readLogRow(deps, input);
  const [stored, attempts] = await Promise.all([
    readDelivery(deps.sql, { deliveryId: row.id }),
    listAttempts(deps.sql, { deliveryId: row.id }),
  ]);
  const last = attempts.at(-1);
  return {
    ...view,
    body: stored!.body,
    // As sent on the last attempt: webhook-timestamp is that attempt's recorded start, exactly the
    // value the sender signed, and webhook-signature the header it sent, as recorded. Nothing is
    // recomputed (that would need the endpoint's secret, which may have been rotated since).
    headers: last ? headersOf(row.message_id, last) : {},
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attempted_at.toISOString(),
      succeeded: a.succeeded,
      status_code: a.status_code,
      error: a.error,
      duration_ms: a.duration_ms,
      response_prefix: a.response_prefix,
    })),
  };
}

async function toViews(deps: LogDeps, workspaceId: string, rows: LogRow[]): Promise<DeliveryLogView[]> {
  const now = deps.clock.now();
  const open = rows.filter((row) => row.status === 'pending' || row.status === 'sending');
  const facts =
    open.length === 0
      ? { windowStarts: 0, inFlight: new Map<string, number>() }
      : await readWaitingFacts(deps.sql, {
          workspaceId,
          endpointIds: [...new Set(open.map((row) => row.endpoint_id))],
          now,
          windowEndedBefore: new Date(now.getTime() - START_RATE_WINDOW_MS),
        });
  const rules = {
    startsPerWindow: deps.config.startsPerMinutePerWorkspace,
    maxInFlightPerEndpoint: maxInFlightPerEndpoint(deps.config.workerConcurrency),
  };
  return rows.map((row) => ({
    id: row.id,
    webhook_id: row.message_id,
    type: row.type,
    offer_id: row.offer_id,
    endpoint: { id: row.endpoint_id, url: row.endpoint_url },
    status: row.status,
    attempt_count: row.attempt_count,
    max_attempts: row.max_attempts,
    resend_count: row.resend_count,
    resend_limit: MAX_RESENDS,
    last_response_status: row.last_response_status,
    created_at: row.created_at.toISOString(),
    next_attempt_at: nextAttemptAt(row, now),
    waiting_reason: waitingReason(row, facts, rules, now),
    failure_reason: row.failure_reason,
    test: row.is_test,
  }));
}

/**
 * When the next attempt is due: a pending delivery's due time; for an attempt whose worker died
 * (sending, lease passed) the moment its lease ended; nothing while an attempt is in flight or
 * once the delivery has finished.
 */
function nextAttemptAt(row: LogRow, now: Date): string | null {
  if (row.status === 'pending') return row.next_attempt_at?.toISOString() ?? null;
  if (row.status === 'sending' && row.lease_until && row.lease_until.getTime() <= now.getTime()) return row.lease_until.toISOString();
  return null;
}

function headersOf(messageId: string, attempt: { attempted_at: Date; signature: string | null }): Record<string, string> {
  const headers = unsignedHeaders(messageId, webhookTimestamp(attempt.attempted_at));
  return attempt.signature === null ? headers : { ...headers, 'webhook-signature': attempt.signature };
}
