import type { Tx } from '../../db/connect.js';

export interface WaitingRoom {
  workspaceId: string;
  /** Events the workspace may still have waiting after this fan-out batch (1,000 minus those waiting). */
  room: number;
  /** Due rows of the workspace this fan-out batch already took (still in the outbox, not counted). */
  taken: number;
}

/**
 * docs/webhook-delivery.md "Limits": "When 1,000 events of a workspace are waiting, further events are not
 * turned into webhooks." Events still in the outbox are waiting too, in commit order, so of a
 * workspace's due outbox rows that an active endpoint subscribes to, those past its room are
 * dropped now, all in this one statement, rather than batch by batch as fan-out reaches them: a
 * flood of 50,000 events leaves at most its 1,000 in the outbox and never again takes fan-out
 * turns from other workspaces. Rows this batch already took (`taken`) are not counted. Returns
 * the dropped rows.
 *
 * The outbox swings from empty to a flood within a second, faster than any ANALYZE, so this
 * statement is written to have no plan that grows with the square of the flood whatever the
 * statistics say: no join between outbox rows and other outbox rows or endpoint rows. Each
 * workspace's subscribed types are read once (an array), its excess is one ordered walk of its
 * own rows past the room, and the delete finds those rows by primary key (`= any` of an array
 * is planned as index lookups). The join form it replaces ran for minutes on a flood of 50,000
 * when the planner still believed the outbox small.
 */
export async function dropExcessWaiting(
  tx: Tx,
  input: { rooms: WaitingRoom[]; taken: string[]; now: Date },
): Promise<{ id: string; workspace_id: string }[]> {
  if (input.rooms.length === 0) return [];
  return tx<{ id: string; workspace_id: string }[]>`
    with budget as materialized (
      select * from unnest(${input.rooms.map((r) => r.workspaceId)}::uuid[], ${input.rooms.map((r) => r.room)}::int[],
                           ${input.rooms.map((r) => r.taken)}::int[])
        as b(workspace_id, room, taken_here)
    ),
    -- Only a workspace with more due rows than its room and this batch's rows can have an excess:
    -- probe for the row just past them (an index walk of room + taken rows at most), so a batch of
    -- workspaces without a flood costs that walk each, not an ordering of their whole outbox.
    over as materialized (
      select b.workspace_id, b.room,
             array(select distinct t.type
                     from webhook_endpoints e cross join lateral unnest(e.event_types) as t(type)
                    where e.workspace_id = b.workspace_id and e.removed_at is null and e.state = 'active') as types
        from budget b
       where exists (select 1 from webhook_outbox o
                      where o.workspace_id = b.workspace_id and o.available_at <= ${input.now}
                     offset b.room + b.taken_here limit 1)
    ),
    excess as materialized (
      select x.id
        from over b
       cross join lateral (
             select o.id from webhook_outbox o
              where o.workspace_id = b.workspace_id and o.available_at <= ${input.now}
                and o.type = any (b.types)
                and o.id <> all (${input.taken}::uuid[])
              order by o.available_at, o.created_at, o.offer_sequence, o.id
             offset b.room) x
    )
    delete from webhook_outbox o
     where o.id = any (array(select id from excess))
    returning o.id, o.workspace_id`;
}
