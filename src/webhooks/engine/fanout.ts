import { coerceError } from '../../log.js';
import { readOffersWithEvents } from '../../read-model/offers-by-id.js';
import type { Tx } from '../../db/connect.js';
import { tracedDeps, tracedSql, withSpan } from '../../telemetry/tracing.js';
import { eventBody, fitsBodyLimit } from './body.js';
import type { EngineDeps } from './deps.js';
import { MAX_ATTEMPTS, MAX_OPEN_DELIVERIES_PER_ENDPOINT, MAX_WAITING_EVENTS_PER_WORKSPACE } from './policy.js';
import { FANOUT_BATCH_SIZE, FANOUT_ROWS_PER_WORKSPACE } from './round-robin.js';
import { countWaitingEvents } from '../sql/countWaitingEvents.js';
import { deleteOutboxRows } from '../sql/deleteOutboxRows.js';
import { dropExcessWaiting } from '../sql/dropExcessWaiting.js';
import { findSubscribedEndpoints } from '../sql/findSubscribedEndpoints.js';
import { insertDeliveries, type NewDelivery } from '../sql/insertDeliveries.js';
import { insertMessages, type NewMessage } from '../sql/insertMessages.js';
import { takeDueOutbox, type OutboxRow } from '../sql/takeDueOutbox.js';
import { tryLockFanOut } from '../sql/tryLockFanOut.js';
import { VACUUM_AFTER_DROPPED_ROWS, vacuumOutbox } from '../sql/vacuumOutbox.js';

export interface FanOutResult {
  /** Outbox rows taken out of the outbox this round. */
  taken: number;
  /** Messages prepared (events with at least one subscribed active endpoint). */
  messages: number;
  deliveries: number;
  /** Deliveries recorded as failed at once because their endpoint held 1,000 open ones. */
  queueFull: number;
  /** Events not turned into webhooks because 1,000 of the workspace's events were waiting. */
  droppedWaiting: number;
  /** Events no active endpoint subscribed to. */
  unsubscribed: number;
  /** Another worker was fanning out; nothing was done. */
  busy: boolean;
  /** The batch was full, or a workspace gave its whole share: more rows are probably due. */
  more: boolean;
}

/**
 * Turns due outbox rows into prepared messages and one delivery per subscribed active endpoint,
 * and removes the rows from the outbox, in one transaction: a crash leaves the rows for the next
 * round, and a repeated round stores nothing twice (ids and (message, endpoint) are unique).
 *
 * The body is prepared here, "shortly after the event" (openapi.yaml "Webhook request"),
 * reading the offer as it is now through the API's read model, so `data.offer` has exactly the
 * fields of GET /offers/{id} and may already show a later change.
 *
 * docs/webhook-delivery.md "Limits": "When 1,000 events of a workspace are waiting, further events are not
 * turned into webhooks." The outbox row is written by the product's own transaction, which must
 * not fail because of webhooks, so the limit is enforced here: the workspace's waiting events
 * (at least one delivery not attempted yet) are counted, the oldest due rows fill the room left,
 * and the rest are dropped from the outbox with a warning. A workspace with more rows due than
 * this batch took has the rows past its room dropped in the same transaction, in one statement
 * (dropExcessWaiting), so a flood costs one step, not one batch per 50 rows, and the outbox is
 * vacuumed right after a large cut (vacuumOutbox.ts), so the next batches do not walk its dead
 * rows. Waiting events drain at the start rate (60 per minute), so a burst beyond 1,000 is cut
 * rather than queued for hours.
 *
 * With tracing on, a round that took rows runs in a span of its own trace, linked to the span of
 * each action whose outbox row it took (the traceparent stored with the row); an empty round,
 * the worker's every wake-up, makes none.
 */
export async function fanOutOnce(deps: EngineDeps): Promise<FanOutResult> {
  const now = deps.clock.now();
  const result = emptyFanOut();
  const dropped: { workspace_id: string }[] = [];
  await deps.sql.begin(async (locking) => {
    if (!(await tryLockFanOut(locking))) {
      result.busy = true;
      return;
    }
    const rows = await takeDueOutbox(locking, now, FANOUT_BATCH_SIZE, FANOUT_ROWS_PER_WORKSPACE);
    if (rows.length === 0) return;
    const span = { links: rows.map((row) => row.traceparent), attributes: { 'offerdesk.outbox.rows': rows.length } };
    await withSpan('webhook fan-out', span, async (active) => {
      // The rest of the transaction's statements are the span's (with tracing on and the span kept).
      const tx = tracedSql(locking, active);
      result.taken = rows.length;
      const perWorkspace = new Map<string, number>();
      for (const row of rows) perWorkspace.set(row.workspace_id, (perWorkspace.get(row.workspace_id) ?? 0) + 1);
      result.more = rows.length >= FANOUT_BATCH_SIZE || [...perWorkspace.values()].some((n) => n >= FANOUT_ROWS_PER_WORKSPACE);

      const endpointsByRow = new Map<string, string[]>();
      for (const sub of await findSubscribedEndpoints(tx, rows.map((row) => row.id))) {
        const list = endpointsByRow.get(sub.outbox_id) ?? [];
        list.push(sub.endpoint_id);
        endpointsByRow.set(sub.outbox_id, list);
      }
      const subscribed = rows.filter((row) => endpointsByRow.has(row.id));
      result.unsubscribed = rows.length - subscribed.length;

      // A workspace that gave its whole share has more rows due: its excess goes in one step below.
      const backlogged = [...perWorkspace].filter(([, n]) => n >= FANOUT_ROWS_PER_WORKSPACE).map(([id]) => id);
      const waiting = await countWaitingEvents(
        tx,
        [...new Set([...subscribed.map((row) => row.workspace_id), ...backlogged])],
        MAX_WAITING_EVENTS_PER_WORKSPACE,
      );
      const kept: OutboxRow[] = [];
      for (const row of subscribed) {
        const count = waiting.get(row.workspace_id) ?? 0;
        if (count >= MAX_WAITING_EVENTS_PER_WORKSPACE) {
          dropped.push(row);
          continue;
        }
        waiting.set(row.workspace_id, count + 1);
        kept.push(row);
      }
      const rooms = backlogged.map((workspaceId) => ({
        workspaceId,
        room: Math.max(0, MAX_WAITING_EVENTS_PER_WORKSPACE - (waiting.get(workspaceId) ?? 0)),
        taken: perWorkspace.get(workspaceId) ?? 0,
      }));
      dropped.push(...(await dropExcessWaiting(tx, { rooms, taken: rows.map((row) => row.id), now })));
      result.droppedWaiting = dropped.length;

      const messages = await prepareMessages(tx, tracedDeps(deps, active), kept, now);
      await insertMessages(tx, messages, now);
      const deliveries: NewDelivery[] = messages.flatMap((message) =>
        (endpointsByRow.get(message.id) ?? []).map((endpointId) => ({ messageId: message.id, endpointId })),
      );
      const inserted = await insertDeliveries(tx, {
        deliveries,
        isTest: false,
        maxAttempts: MAX_ATTEMPTS,
        maxOpenPerEndpoint: MAX_OPEN_DELIVERIES_PER_ENDPOINT,
        now,
      });
      result.messages = messages.length;
      result.deliveries = inserted.length;
      result.queueFull = inserted.filter((d) => d.status === 'failed').length;
      await deleteOutboxRows(tx, rows.map((row) => row.id));
      active?.setAttributes({ 'offerdesk.webhook.messages': result.messages, 'offerdesk.webhook.deliveries': result.deliveries });
    });
  });

  if (dropped.length >= VACUUM_AFTER_DROPPED_ROWS) {
    // The cut is committed; a failed vacuum only leaves the dead rows to autovacuum.
    await vacuumOutbox(deps.sql).catch((thrown: unknown) =>
      deps.logger.warn({ err: coerceError(thrown) }, 'could not vacuum the webhook outbox after dropping events; autovacuum will'),
    );
  }
  if (dropped.length > 0) {
    deps.logger.warn(
      { dropped: dropped.length, workspaces: [...new Set(dropped.map((row) => row.workspace_id))] },
      `webhook events not sent: ${MAX_WAITING_EVENTS_PER_WORKSPACE} events of the workspace were already waiting`,
    );
  }
  if (result.queueFull > 0) {
    deps.logger.warn(
      { deliveries: result.queueFull },
      `webhook deliveries recorded as failed without an attempt: endpoint holds ${MAX_OPEN_DELIVERIES_PER_ENDPOINT} open deliveries`,
    );
  }
  return result;
}

/** The message of each event: its id is the outbox row's id (the webhook-id), its body final. */
async function prepareMessages(tx: Tx, deps: EngineDeps, rows: OutboxRow[], now: Date): Promise<NewMessage[]> {
  // One statement for the whole batch (a fan-out batch is up to FANOUT_BATCH_SIZE events).
  const found = await readOffersWithEvents(
    tx,
    rows.map((row) => ({ workspaceId: row.workspace_id, offerId: row.offer_id, sequence: row.offer_sequence })),
    now,
  );
  const read = rows.map((row, i) => ({ row, offer: found[i]?.offer ?? null, event: found[i]?.event ?? null }));
  const messages: NewMessage[] = [];
  for (const { row, offer, event } of read) {
    if (!offer || !event) {
      // The outbox row's foreign key cascades with the offer's timeline, so this means a bug.
      deps.logger.error({ outboxId: row.id, offerId: row.offer_id }, 'webhook event without its offer or timeline entry; not sent');
      continue;
    }
    const body = eventBody({ id: row.id, type: row.type, offer, event });
    if (!fitsBodyLimit(body)) {
      // The schema's text bounds make this impossible; never send an oversized body if it happens.
      deps.logger.error({ outboxId: row.id, bytes: body.bytes }, 'webhook body over 64 KiB; not sent');
      continue;
    }
    messages.push({
      id: row.id,
      workspaceId: row.workspace_id,
      type: row.type,
      body: body.text,
      offerId: row.offer_id,
      recordedAt: row.recorded_at,
      traceparent: row.traceparent,
    });
  }
  return messages;
}

/** A fan-out that took nothing: the start of every round's count, and the round a worker skips. */
export function emptyFanOut(): FanOutResult {
  return { taken: 0, messages: 0, deliveries: 0, queueFull: 0, droppedWaiting: 0, unsubscribed: 0, busy: false, more: false };
}
