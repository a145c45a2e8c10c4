import type { Queryable } from '../../db/connect.js';

/**
 * Active again with a fresh streak. Nothing is back-filled: events that occurred while paused
 * were never turned into deliveries for it (openapi.yaml "Webhook delivery and retries"). Its health notices step
 * back from 'paused' to 'failing' (engine/health.ts): not recovered until a delivery succeeds,
 * and a second pause is told again.
 */
export async function markEndpointActive(sql: Queryable, input: { endpointId: string; now: Date }): Promise<boolean> {
  const rows = await sql`
    update webhook_endpoints
       set state = 'active', failure_streak = 0, paused_at = null, paused_reason = null, updated_at = ${input.now},
           health_state = case when health_state = 'paused' then 'failing' else health_state end
     where id = ${input.endpointId}::uuid and removed_at is null
    returning id`;
  return rows.length > 0;
}
