import { createHmac } from 'node:crypto';
import { SECRET_PREFIX } from '../../sealing/secrets.js';

/**
 * Standard Webhooks signatures (openapi.yaml "Webhook signature"), written with node:crypto so the
 * tests can check them with the reference `standardwebhooks` library as an independent party.
 */

export const SIGNATURE_VERSION = 'v1';

/** Key = base64 decoding of the secret after `whsec_` (openapi.yaml "Webhook signature"). */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`webhook secret must start with ${SECRET_PREFIX}`);
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('webhook secret has an empty key');
  return key;
}

/**
 * `v1,<base64 HMAC-SHA256(key, "<msgId>.<timestamp>.<body>")>`. The body is signed as the UTF-8
 * bytes the sender puts on the wire (`Buffer.from(body, 'utf8')`), never a re-serialisation.
 */
export function signPayload(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error(`webhook timestamp must be whole unix seconds, got ${timestampSeconds}`);
  }
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${msgId}.${timestampSeconds}.`, 'utf8')
    .update(Buffer.from(body, 'utf8'))
    .digest('base64');
  return `${SIGNATURE_VERSION},${mac}`;
}
