import type { Tx } from '../../db/connect.js';

/**
 * SPEC.md "Webhook limits": events waiting to be sent, per workspace. An event waits while at
 * least one of its deliveries has not been attempted yet (a delivery held back by the start rate
 * waits; one in its retry pauses has been sent). Tests (pings) are not events.
 */
export async function countWaitingEvents(tx: Tx, workspaceIds: string[]): Promise<Map<string, number>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await tx<{ workspace_id: string; waiting: number }[]>`
    select d.workspace_id, count(distinct d.message_id)::int as waiting
      from webhook_deliveries d
     where d.workspace_id = any (${workspaceIds}::uuid[])
       and d.status in ('pending', 'sending')
       and d.attempt_count = 0
       and not d.is_test
     group by d.workspace_id`;
  return new Map(rows.map((row) => [row.workspace_id, row.waiting]));
}
