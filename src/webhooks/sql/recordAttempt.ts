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

/** The stored form of an attempt's free text and duration (the columns' bounds). */
export function clipAttemptText(a: AttemptRecord): { error: string | null; durationMs: number; responsePrefix: string | null } {
  return {
    error: a.error === null ? null : a.error.slice(0, MAX_ERROR_CHARS),
    durationMs: Math.max(0, Math.round(a.durationMs)),
    responsePrefix: a.responsePrefix === null ? null : a.responsePrefix.slice(0, MAX_RESPONSE_PREFIX_CHARS),
  };
}

/** Appends one line to the delivery log: time, status code, error, duration, start of the reply. */
export async function recordAttempt(sql: Queryable, a: AttemptRecord): Promise<void> {
  const clipped = clipAttemptText(a);
  await sql`
    insert into webhook_attempts
      (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, error, duration_ms, response_prefix, signature)
    values (${a.deliveryId}::uuid, (select endpoint_id from webhook_deliveries where id = ${a.deliveryId}::uuid), ${a.attempt}, ${a.attemptedAt}, ${a.succeeded}, ${a.statusCode},
            ${clipped.error}, ${clipped.durationMs}, ${clipped.responsePrefix},
            ${a.signature ?? null})`;
}
