import type { Queryable } from '../../db/connect.js';

export interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_prefix: string | null;
}

export async function listAttempts(sql: Queryable, input: { deliveryId: string }): Promise<AttemptRow[]> {
  return sql<AttemptRow[]>`
    select attempt, attempted_at, succeeded, status_code, error, duration_ms, response_prefix
      from webhook_attempts
     where delivery_id = ${input.deliveryId}::uuid
     order by id`;
}
