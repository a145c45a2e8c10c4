import type { Queryable } from '../../db/connect.js';

/**
 * docs/webhook-delivery.md "Limits": "Deleting the last endpoint of a workspace drops that workspace's
 * events that were still waiting": its outbox rows, including offer.expired rows not yet due.
 */
export async function dropWaitingEvents(sql: Queryable, input: { workspaceId: string }): Promise<number> {
  const rows = await sql`delete from webhook_outbox where workspace_id = ${input.workspaceId}::uuid returning id`;
  return rows.length;
}
