import type { Queryable } from '../db/connect.js';
import { MINUTE } from '../clock.js';
import type { OfferWebhookEventType } from '../contract.js';
import { exhaustive } from '../exhaustive.js';
import { traceparentOf } from '../telemetry/tracing.js';

/**
 * Webhook event types of openapi.yaml "Webhook events" that product actions emit (ping is sent by
 * tests): exactly the offer events of openapi.yaml's `webhooks` section (checked by the typecheck).
 */
export const OFFER_WEBHOOK_TYPES = exhaustive<OfferWebhookEventType>()([
  'offer.sent',
  'offer.first_viewed',
  'offer.signed',
  'offer.accepted',
  'offer.withdrawn',
  'offer.expired',
]);
export type OfferWebhookType = OfferWebhookEventType;

/** openapi.yaml "Webhook events": offer.expired is "dispatched about two minutes later". */
export const EXPIRED_DISPATCH_DELAY_MS = 2 * MINUTE;

export interface OutboxEvent {
  workspaceId: string;
  type: OfferWebhookType;
  offerId: string;
  /** The timeline entry this webhook reports (`data.event`). */
  offerSequence: number;
  occurredAt: Date;
  /** "Now" of the action: the row becomes dispatchable from then (plus the expiry delay). */
  recordedAt: Date;
}

/**
 * Writes the outbox row. Must be called with the transaction that changes the offer and appends
 * the timeline entry, so the three commit or roll back together: nothing is sent for a rolled-back
 * action and nothing committed is lost (openapi.yaml "Webhook events": each action emits its event).
 * With tracing on, the row keeps the traceparent of the span `tx` carries (tracedSql: the request,
 * the CLI command, the job), which the fan-out and each delivery attempt link to.
 */
export async function recordWebhookEvent(tx: Queryable, event: OutboxEvent): Promise<void> {
  const delay = event.type === 'offer.expired' ? EXPIRED_DISPATCH_DELAY_MS : 0;
  const availableAt = new Date(event.recordedAt.getTime() + delay);
  await tx`
    insert into webhook_outbox (workspace_id, type, offer_id, offer_sequence, occurred_at, available_at, created_at, traceparent)
    values (${event.workspaceId}::uuid, ${event.type}, ${event.offerId}::uuid, ${event.offerSequence},
            ${event.occurredAt}, ${availableAt}, ${event.recordedAt}, ${traceparentOf(tx)})`;
}
