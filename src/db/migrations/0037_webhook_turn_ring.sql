-- The workspace's turn without rewriting an indexed column (docs/webhook-delivery.md "Fairness",
-- docs/scaling.md "The write path").
--
-- Why: the claim moved every workspace it served behind all others by rewriting its
-- queue_position, which webhook_workspace_state_queue_idx and webhook_workspace_state_ready_idx
-- read, so each workspace served was a non-HOT update with an entry in three indexes: about one a
-- delivery when many workspaces are busy.
--
-- Now the round-robin queue is a ring with a cursor. A workspace's place in the ring is
-- (queue_position, queue_entry), which the claim no longer changes; webhook_round_robin holds the
-- place of the last workspace a claim served. The claim reads the ready workspaces in ring order
-- from just after the cursor, wrapping round, and moves the cursor onto the last one it served:
-- every workspace it served is then behind all others, and its row's write (its start-rate
-- window) is HOT.
--
-- Two moves write a place, each once per change of a workspace, not per claim:
-- - A workspace with nothing pending that gets a pending delivery, and whose last turn is older
--   than that of the ready workspace just after the cursor, takes the cursor's position with a new
--   queue_entry: just after the cursor, behind others that came back before it
--   (webhook_workspace_mark_pending below). Otherwise it keeps its place.
-- - A workspace setting up its first endpoint joins at the back: the cursor's own
--   position with a new entry and the cursor moved onto it (src/webhooks/sql/joinFairnessQueue.ts,
--   which renumbers the ring when positions grow long). Positions are numeric so that one always
--   fits between two.
--
-- Safe beside a worker of the release before (README "Upgrading"): it still moves the workspaces
-- it serves to the end of the positions, which is a place in the ring (at its back until this
-- release's claims move the cursor: while both run, the order is only roughly round-robin).

-- Room on each page for the claim's HOT updates; the type change below rewrites the table with it.
alter table webhook_workspace_state set (fillfactor = 50);
alter table webhook_workspace_state alter column queue_position type numeric;

create sequence webhook_workspace_queue_entry_seq;
alter table webhook_workspace_state add column queue_entry bigint;
-- Entries in today's queue order, so that the ring starts in it.
update webhook_workspace_state s
   set queue_entry = o.entry
  from (select workspace_id, nextval('webhook_workspace_queue_entry_seq') as entry
          from (select workspace_id from webhook_workspace_state order by queue_position, workspace_id) ordered) o
 where s.workspace_id = o.workspace_id;
alter table webhook_workspace_state
  alter column queue_entry set default nextval('webhook_workspace_queue_entry_seq'),
  alter column queue_entry set not null;
alter sequence webhook_workspace_queue_entry_seq owned by webhook_workspace_state.queue_entry;

drop index webhook_workspace_state_queue_idx;
drop index webhook_workspace_state_ready_idx;
create index webhook_workspace_state_queue_idx on webhook_workspace_state (queue_position, queue_entry);
create index webhook_workspace_state_ready_idx on webhook_workspace_state (queue_position, queue_entry) where ready;

create table webhook_round_robin (
  -- One row: the cursor.
  id boolean constraint webhook_round_robin_pkey primary key default true constraint webhook_round_robin_one check (id),
  queue_position numeric not null,
  queue_entry bigint not null
) with (fillfactor = 50);

-- The cursor before the first place: the ring is read in today's queue order, longest-waiting
-- first, and the place a worker of the release before gives a workspace it served (after every
-- other) is at the ring's back.
insert into webhook_round_robin (queue_position, queue_entry)
select coalesce(min(queue_position), 0) - 1, 0 from webhook_workspace_state;

-- Migration 0030's mark, which writes the row of every workspace given a pending delivery, now
-- also brings a workspace that was not ready to just after the cursor when it has waited longer
-- than the ready workspace there (last_served_at: its last turn, or when it joined; null, never:
-- longest). Those of one statement keep that order. Rows are locked in workspace order, so two
-- statements marking the same workspaces cannot deadlock; the cursor is only read.
create or replace function webhook_workspace_mark_pending() returns trigger language plpgsql as $$
declare
  front numeric;
  front_entry bigint;
  front_served timestamptz;
  movers uuid[];
begin
  perform 1
     from webhook_workspace_state s
    where s.workspace_id in (select p.workspace_id from pending_rows p where p.status = 'pending')
    order by s.workspace_id
      for no key update;
  select c.queue_position, c.queue_entry into front, front_entry from webhook_round_robin c;
  -- The ready workspace the next claim comes to first: after the cursor, or from the ring's start.
  select coalesce(s.last_served_at, '-infinity') into front_served
    from webhook_workspace_state s
   where s.ready and (s.queue_position, s.queue_entry) > (front, front_entry)
   order by s.queue_position, s.queue_entry limit 1;
  if front_served is null then
    select coalesce(s.last_served_at, '-infinity') into front_served
      from webhook_workspace_state s where s.ready order by s.queue_position, s.queue_entry limit 1;
  end if;
  select array_agg(x.workspace_id order by coalesce(x.last_served_at, '-infinity'), x.queue_position, x.queue_entry) into movers
    from webhook_workspace_state x
   where x.workspace_id in (select p.workspace_id from pending_rows p where p.status = 'pending')
     and not x.ready and front is not null and coalesce(x.last_served_at, '-infinity') < front_served;
  update webhook_workspace_state s
     set ready = true
   where s.workspace_id in (select p.workspace_id from pending_rows p where p.status = 'pending')
     and s.workspace_id <> all (coalesce(movers, '{}'));
  update webhook_workspace_state s
     set ready = true, queue_position = front, queue_entry = m.entry
    from (select u.id, nextval('webhook_workspace_queue_entry_seq') as entry
            from unnest(movers) with ordinality as u(id, n) order by u.n) m
   where s.workspace_id = m.id;
  return null;
end
$$;
