import type { Queryable } from '../../db/connect.js';

/** Counts one more delivery in a row that failed finally; returns the new streak. */
export async function addFinalFailure(sql: Queryable, input: { endpointId: string; now: Date }): Promise<number> {
  const [row] = await sql<{ failure_streak: number }[]>`
    update webhook_endpoints
       set failure_streak = failure_streak + 1, updated_at = ${input.now}
     where id = ${input.endpointId}::uuid
    returning failure_streak`;
  return row?.failure_streak ?? 0;
}
