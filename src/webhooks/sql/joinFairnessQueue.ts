import type { Queryable } from '../../db/connect.js';

/** Decimal places a ring place may reach before the ring is renumbered: each join halves a gap. */
const MAX_PLACE_SCALE = 20;

/**
 * docs/webhook-delivery.md "Fairness": "a workspace setting up its first endpoint joins at the back" of the
 * round-robin (the whole rule: round-robin.ts). Called when a workspace gains its first endpoint
 * (again, after removing all). The ring (migration 0037) is read from just after its cursor, the
 * last workspace served, so the back is the cursor's own place: the workspace takes the cursor's
 * position with a new entry and the cursor moves onto it. Workspaces that came back to the
 * cursor's position since the last claim (they wait just after it) move ahead, halfway to the next
 * position, keeping their order.
 */
export async function joinFairnessQueue(sql: Queryable, input: { workspaceId: string; now: Date }): Promise<void> {
  // Rows are locked in the claim's order (the workspace's state, then the cursor), so a join and
  // a claim cannot deadlock.
  await sql`select 1 from webhook_workspace_state where workspace_id = ${input.workspaceId}::uuid for update`;
  const [placed] = await sql<{ scale: number | null }[]>`
    with cursor as materialized (
      select c.queue_position, c.queue_entry from webhook_round_robin c for update
    ),
    next as materialized (
      select (select c.queue_position from cursor c) as at,
             coalesce(((select c.queue_position from cursor c)
                       + (select min(s.queue_position) from webhook_workspace_state s
                           where s.queue_position > (select c.queue_position from cursor c))) * 0.5,
                      (select c.queue_position from cursor c) + 1) as ahead
    ),
    joined as (
      -- last_served_at: its wait counts from now, as a served workspace's does (the mark of
      -- migration 0037 compares it).
      insert into webhook_workspace_state as s (workspace_id, queue_position, last_served_at)
      select ${input.workspaceId}::uuid,
             coalesce((select at from next), (select coalesce(max(x.queue_position), 0) + 1 from webhook_workspace_state x)),
             ${input.now}
      on conflict (workspace_id) do update
         set queue_position = excluded.queue_position, queue_entry = nextval('webhook_workspace_queue_entry_seq'),
             last_served_at = excluded.last_served_at
      returning s.queue_position, s.queue_entry
    ),
    moved_ahead as (
      update webhook_workspace_state s
         set queue_position = (select ahead from next)
       where s.queue_position = (select c.queue_position from cursor c)
         and s.queue_entry > (select c.queue_entry from cursor c)
         and s.workspace_id <> ${input.workspaceId}::uuid
      returning s.queue_position
    ),
    moved as (
      insert into webhook_round_robin as r (id, queue_position, queue_entry)
      select true, j.queue_position, j.queue_entry from joined j
      on conflict (id) do update set queue_position = excluded.queue_position, queue_entry = excluded.queue_entry
    )
    select max(scale(queue_position)) as scale from moved_ahead`;
  if ((placed?.scale ?? 0) > MAX_PLACE_SCALE) await renumberRing(sql);
}

/**
 * Whole-numbered places in the ring's order from the cursor, the cursor on the last: the order
 * and the cursor's meaning unchanged. Rare (a gap halved MAX_PLACE_SCALE times by joins).
 */
async function renumberRing(sql: Queryable): Promise<void> {
  await sql`
    with cursor as materialized (
      select c.queue_position, c.queue_entry from webhook_round_robin c for update
    ),
    ranked as materialized (
      select s.workspace_id, s.queue_entry,
             row_number() over (order by (s.queue_position, s.queue_entry) <= (c.queue_position, c.queue_entry),
                                         s.queue_position, s.queue_entry) as place
        from webhook_workspace_state s cross join cursor c
    ),
    renumbered as (
      update webhook_workspace_state s set queue_position = r.place from ranked r where s.workspace_id = r.workspace_id
    )
    update webhook_round_robin c
       set queue_position = l.place, queue_entry = l.queue_entry
      from (select r.place, r.queue_entry from ranked r order by r.place desc limit 1) l`;
}
