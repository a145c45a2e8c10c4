import type { Tx } from '../../db/connect.js';
import type { OfferWebhookType } from '../../domain/outbox.js';

export interface OutboxRow {
  id: string;
  workspace_id: string;
  /** Written only by writeOutbox (outbox.ts), which takes an OfferWebhookType. */
  type: OfferWebhookType;
  offer_id: string;
  offer_sequence: number;
  /** When the product's transaction recorded the event (the start of the end-to-end time). */
  recorded_at: Date;
  /** The W3C traceparent of the action that wrote the row (tracing on), for span links. */
  traceparent: string | null;
}

/**
 * Due outbox rows (offer.expired rows become due two minutes after detection), locked until the
 * fan-out transaction deletes them, taken round-robin across workspaces: the workspaces whose
 * oldest due row has waited longest come first, and each gives at most `perWorkspace` rows to
 * one batch. A workspace with a large backlog therefore never holds back another workspace's
 * events (docs/webhook-delivery.md "Fairness": "Workspaces are served round-robin, longest-waiting first";
 * the whole rule: round-robin.ts).
 * Fan-out runs one at a time (tryLockFanOut); the row locks guard against removal of an endpoint
 * dropping the same rows.
 */
export async function takeDueOutbox(tx: Tx, now: Date, limit: number, perWorkspace: number): Promise<OutboxRow[]> {
  return tx<OutboxRow[]>`
    with due_workspaces as (
      select workspace_id, min(available_at) as oldest
        from webhook_outbox
       where available_at <= ${now}
       group by workspace_id
       order by oldest, workspace_id
       limit ${limit}
    )
    select o.id, o.workspace_id, o.type, o.offer_id, o.offer_sequence, o.created_at as recorded_at, o.traceparent
      from due_workspaces w
      cross join lateral (
        select o.id, o.workspace_id, o.type, o.offer_id, o.offer_sequence, o.traceparent,
               o.available_at, o.created_at
          from webhook_outbox o
         where o.workspace_id = w.workspace_id and o.available_at <= ${now}
         order by o.available_at, o.created_at, o.offer_sequence, o.id
         limit ${perWorkspace}
           for update skip locked
      ) o
     order by w.oldest, w.workspace_id, o.available_at, o.created_at, o.offer_sequence, o.id
     limit ${limit}`;
}
