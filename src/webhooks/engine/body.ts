import type { OfferWebhookEvent, PingWebhookEvent } from '../../contract.js';
import type { Offer, OfferEvent } from '../../read-model/types.js';
import { MAX_WEBHOOK_BODY_BYTES } from './policy.js';

/**
 * Webhook bodies (openapi.yaml "Webhook request"). A body is serialised once,
 * when the message is prepared, and those exact bytes are stored, signed and sent on every
 * attempt and resend: nothing re-serialises it.
 */
export const API_VERSION: PingWebhookEvent['api_version'] = 'v1';

export interface PreparedBody {
  text: string;
  bytes: number;
}

/**
 * An offer webhook's body as openapi.yaml's `webhooks` section describes it; `data.event` is the
 * timeline entry as the API reads it (its `type` is the one openapi.yaml "Webhook events" pairs with the webhook type).
 */
type OfferWebhookBody = Omit<OfferWebhookEvent, 'type' | 'data'> & {
  type: OfferWebhookEvent['type'];
  data: { offer: Offer; event: OfferEvent };
};

export function eventBody(input: { id: string; type: OfferWebhookEvent['type']; offer: Offer; event: OfferEvent }): PreparedBody {
  const body: OfferWebhookBody = {
    id: input.id,
    type: input.type,
    // "When the event happened": the timeline entry's time, in the API's timestamp format.
    created_at: input.event.occurred_at,
    api_version: API_VERSION,
    data: { offer: input.offer, event: input.event },
  };
  return prepared(body);
}

/** openapi.yaml "Webhook events": ping carries `data: {}`; its time is when the test was requested. */
export function pingBody(input: { id: string; at: Date }): PreparedBody {
  const body: PingWebhookEvent = { id: input.id, type: 'ping', created_at: input.at.toISOString(), api_version: API_VERSION, data: {} };
  return prepared(body);
}

function prepared(value: unknown): PreparedBody {
  const text = JSON.stringify(value);
  return { text, bytes: Buffer.byteLength(text, 'utf8') };
}

/** The schema bounds every text so an offer plus one entry stays far below this; checked anyway. */
export function fitsBodyLimit(body: PreparedBody): boolean {
  return body.bytes <= MAX_WEBHOOK_BODY_BYTES;
}
