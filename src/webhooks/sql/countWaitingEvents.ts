import type { Tx } from '../../db/connect.js';

/**
 * docs/webhook-delivery.md "Limits": events waiting to be sent, per workspace. An event waits while at
 * least one of its deliveries has not been attempted yet (a delivery held back by the start rate
 * waits; one in its retry pauses has been sent). Tests (pings) are not events.
 *
 * Counted only up to `upTo` (the limit): fan-out needs the exact number below the limit and
 * "at the limit" above it, so each workspace reads at most `upTo` distinct messages from
 * webhook_queue_waiting_idx (migration 0019) however large its backlog.
 */
export async function countWaitingEvents(tx: Tx, workspaceIds: string[], upTo: number): Promise<Map<string, number>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await tx<{ workspace_id: string; waiting: number }[]>`
    select w.workspace_id,
           (select count(*)
              from (select distinct d.message_id
                      from webhook_queue d
                     where d.workspace_id = w.workspace_id
                       and d.attempt_count = 0
                       and not d.is_test
                     limit ${upTo}) waiting)::int as waiting
      from unnest(${workspaceIds}::uuid[]) as w(workspace_id)`;
  return new Map(rows.map((row) => [row.workspace_id, row.waiting]));
}
