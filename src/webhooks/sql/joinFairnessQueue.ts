import type { Queryable } from '../../db/connect.js';

/**
 * docs/webhook-delivery.md "Fairness": "a workspace setting up its first endpoint joins at the back" of the
 * round-robin (the whole rule: round-robin.ts). Called when a workspace gains its first endpoint
 * (again, after removing all).
 */
export async function joinFairnessQueue(sql: Queryable, input: { workspaceId: string }): Promise<void> {
  await sql`
    insert into webhook_workspace_state as s (workspace_id, queue_position)
    values (${input.workspaceId}::uuid, (select coalesce(max(queue_position), 0) + 1 from webhook_workspace_state))
    on conflict (workspace_id) do update
       set queue_position = (select coalesce(max(queue_position), 0) + 1 from webhook_workspace_state)`;
}
