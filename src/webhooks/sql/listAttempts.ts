import type { Queryable } from '../../db/connect.js';

export interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_prefix: string | null;
  /** The webhook-signature header as sent; null when none was recorded. */
  signature: string | null;
}

export async function listAttempts(sql: Queryable, input: { deliveryId: string }): Promise<AttemptRow[]> {
  return sql<AttemptRow[]>`
    select attempt, attempted_at, succeeded, status_code, error, duration_ms, response_prefix, signature
      from webhook_attempts
     where delivery_id = ${input.deliveryId}::uuid
     order by id`;
}
