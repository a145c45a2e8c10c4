import type { Queryable } from '../../db/connect.js';

/** Decimal places a ring place may reach before the ring is renumbered: joins between two claims split one gap. */
const MAX_PLACE_SCALE = 20;

/**
 * docs/webhook-delivery.md "Fairness": "a workspace setting up its first endpoint joins at the back" of the
 * round-robin (the whole rule: round-robin.ts). Called when a workspace gains its first endpoint
 * (again, after removing all). The ring (migration 0037) is read from just after its cursor, the
 * last workspace served, so its back is the cursor: the workspace takes a place of its own between
 * the cursor and the place after it (migration 0038's webhook_ring_between) and the cursor moves
 * onto it. Every other workspace, those brought to the front since the last claim included, then
 * stands before it.
 */
export async function joinFairnessQueue(sql: Queryable, input: { workspaceId: string; now: Date }): Promise<void> {
  // Rows are locked in the claim's order (the workspace's state, then the cursor), so a join and
  // a claim cannot deadlock.
  await sql`select 1 from webhook_workspace_state where workspace_id = ${input.workspaceId}::uuid for update`;
  const [placed] = await sql<{ scale: number | null }[]>`
    with cursor as materialized (
      select c.queue_position, c.queue_entry from webhook_round_robin c for update
    ),
    place as materialized (
      select case when exists (select 1 from cursor)
                  then webhook_ring_between(
                         (select c.queue_position from cursor c),
                         (select s.queue_position from webhook_workspace_state s
                           where (s.queue_position, s.queue_entry) > ((select c.queue_position from cursor c), (select c.queue_entry from cursor c))
                           order by s.queue_position, s.queue_entry limit 1))
                  else webhook_ring_between((select max(s.queue_position) from webhook_workspace_state s), null)
             end as at
    ),
    joined as (
      -- last_served_at: its wait counts from now, as a served workspace's does (the mark of
      -- migration 0038 compares it). No place fits only beside a tie at the cursor: the cursor's
      -- position, and the renumbering below.
      insert into webhook_workspace_state as s (workspace_id, queue_position, last_served_at)
      select ${input.workspaceId}::uuid, coalesce((select at from place), (select c.queue_position from cursor c)), ${input.now}
      on conflict (workspace_id) do update
         set queue_position = excluded.queue_position, queue_entry = nextval('webhook_workspace_queue_entry_seq'),
             last_served_at = excluded.last_served_at
      returning s.queue_position, s.queue_entry
    ),
    moved as (
      insert into webhook_round_robin as r (id, queue_position, queue_entry)
      select true, j.queue_position, j.queue_entry from joined j
      on conflict (id) do update set queue_position = excluded.queue_position, queue_entry = excluded.queue_entry
    )
    select case when (select at from place) is null then ${MAX_PLACE_SCALE + 1} else scale((select at from place)) end as scale`;
  if ((placed?.scale ?? 0) > MAX_PLACE_SCALE) await sql`select webhook_ring_renumber()`;
}
