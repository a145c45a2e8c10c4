/**
 * The headers of an outgoing webhook request (openapi.yaml "Webhook request"): these five and
 * nothing else. Built here once, for the sender and for the delivery log's "headers as sent".
 */

/** openapi.yaml "Webhook request": `<service>-Webhooks/1.0`. */
export const USER_AGENT = 'Offerdesk-Webhooks/1.0';

/** `webhook-timestamp`: unix seconds of the attempt's start (the time recorded as attempted_at). */
export function webhookTimestamp(attemptAt: Date): number {
  return Math.floor(attemptAt.getTime() / 1000);
}

/** Every header but `webhook-signature`, which the sender adds from the endpoint's secret. */
export function unsignedHeaders(messageId: string, timestampSeconds: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
  };
}
