import type { Tx } from '../../db/connect.js';

export interface Subscription {
  outbox_id: string;
  endpoint_id: string;
}

/**
 * For each outbox row, the active endpoints of its workspace subscribed to its type. Paused
 * endpoints get nothing, neither now nor after resuming (SPEC.md "Events" rule 7).
 */
export async function findSubscribedEndpoints(tx: Tx, outboxIds: string[]): Promise<Subscription[]> {
  if (outboxIds.length === 0) return [];
  return tx<Subscription[]>`
    select o.id as outbox_id, e.id as endpoint_id
      from webhook_outbox o
      join webhook_endpoints e
        on e.workspace_id = o.workspace_id
       and e.removed_at is null
       and e.state = 'active'
       and o.type = any (e.event_types)
     where o.id = any (${outboxIds}::uuid[])
     order by e.created_at, e.id`;
}
