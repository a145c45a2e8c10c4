import type { Queryable } from '../../db/connect.js';

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  attemptedAt: Date;
  succeeded: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responsePrefix: string | null;
  /** The webhook-signature header as sent; absent when no request was prepared. */
  signature?: string | null;
}

const MAX_ERROR_CHARS = 1000;
const MAX_RESPONSE_PREFIX_CHARS = 2048;

/** Appends one line to the delivery log: time, status code, error, duration, start of the reply. */
export async function recordAttempt(sql: Queryable, a: AttemptRecord): Promise<void> {
  await sql`
    insert into webhook_attempts
      (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, error, duration_ms, response_prefix, signature)
    values (${a.deliveryId}::uuid, (select endpoint_id from webhook_deliveries where id = ${a.deliveryId}::uuid), ${a.attempt}, ${a.attemptedAt}, ${a.succeeded}, ${a.statusCode},
            ${a.error === null ? null : a.error.slice(0, MAX_ERROR_CHARS)},
            ${Math.max(0, Math.round(a.durationMs))},
            ${a.responsePrefix === null ? null : a.responsePrefix.slice(0, MAX_RESPONSE_PREFIX_CHARS)},
            ${a.signature ?? null})`;
}
