import type { Queryable } from '../../db/connect.js';
import type { HealthState } from '../engine/health.js';

/**
 * Moves an endpoint from `from` to `to`, only if it is still in `from` (two workers, or the job
 * and a final failure, deciding the same change at once: one of them makes it, and only that one
 * writes the mails). Returns whether this call changed it.
 */
export async function changeHealth(
  sql: Queryable,
  input: { endpointId: string; from: HealthState; to: HealthState; failingSince: Date | null; now: Date },
): Promise<boolean> {
  const rows = await sql`
    update webhook_endpoints
       set health_state = ${input.to}, failing_since = ${input.to === 'healthy' ? null : input.failingSince},
           health_changed_at = ${input.now}
     where id = ${input.endpointId}::uuid and health_state = ${input.from} and removed_at is null
    returning id`;
  return rows.length > 0;
}
