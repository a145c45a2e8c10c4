import type { Queryable } from '../../db/connect.js';

/** A delivered event breaks the run of final failures. */
export async function resetFailureStreak(sql: Queryable, input: { endpointId: string; now: Date }): Promise<void> {
  await sql`
    update webhook_endpoints
       set failure_streak = 0, updated_at = ${input.now}
     where id = ${input.endpointId}::uuid and failure_streak <> 0`;
}
