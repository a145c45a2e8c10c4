-- Every workspace's place in the round-robin ring is its own (docs/webhook-delivery.md "Fairness").
--
-- Why: migration 0037 gave a workspace coming back to the front, and one joining, the cursor's own
-- position with a new queue_entry. Places that share a position are read in entry order, so a
-- workspace coming back stood behind every workspace sharing the cursor's position still ahead of
-- it: a fleet that joined between two claims (each join took the cursor's position) or was seeded
-- at one position, and every group grew with each workspace that came back into it.
--
-- Now a place is written only between two others, at a position of its own
-- (webhook_ring_between), and the ring is renumbered once here so that no two places share a
-- position; queue_entry orders only the rare ties: two statements placing workspaces into one gap
-- at the same time, or a worker of the release before while both run (README "Upgrading"). A
-- workspace that gets work after having none takes its turn by its last turn among the next
-- workspaces the claim reads (the mark below), wherever the others stand.

-- The position for a place strictly between positions lo and hi (null: no bound on that side),
-- with as few decimals as it takes, so positions grow long only when one gap is split many times;
-- null when lo >= hi (a tie: no place fits).
create function webhook_ring_between(lo numeric, hi numeric) returns numeric language plpgsql immutable as $$
declare
  mid numeric;
begin
  if lo is null and hi is null then return 1; end if;
  if hi is null then return floor(lo) + 1; end if;
  if lo is null then return ceil(hi) - 1; end if;
  if lo >= hi then return null; end if;
  mid := (lo + hi) * 0.5;
  for digits in 0 .. scale(mid) loop
    if round(mid, digits) > lo and round(mid, digits) < hi then return round(mid, digits); end if;
  end loop;
  return mid;
end
$$;

-- Whole-numbered positions 1, 2, ... in the ring's order from just after the cursor, and the cursor
-- before the first (0): the order unchanged. The place a worker of the release before gives a
-- workspace it served, after every position, is then the ring's back, as under migration 0037. Run
-- here once, and by a join whose place grew long (src/webhooks/sql/joinFairnessQueue.ts).
create function webhook_ring_renumber() returns void language sql as $$
  with locked as materialized (
    select c.queue_position, c.queue_entry from webhook_round_robin c for update
  ),
  -- No cursor (a truncated table): the ring is read from its start, as the claim reads it.
  cursor as materialized (
    select l.queue_position, l.queue_entry from locked l
    union all
    select '-Infinity'::numeric, 0::bigint where not exists (select 1 from locked)
  ),
  ranked as materialized (
    select s.workspace_id, s.queue_entry,
           row_number() over (order by (s.queue_position, s.queue_entry) <= (c.queue_position, c.queue_entry),
                                       s.queue_position, s.queue_entry) as place
      from webhook_workspace_state s cross join cursor c
  ),
  renumbered as (
    update webhook_workspace_state s set queue_position = r.place from ranked r where s.workspace_id = r.workspace_id
    returning 1
  )
  update webhook_round_robin c set queue_position = 0, queue_entry = 0 where exists (select 1 from renumbered)
$$;

select webhook_ring_renumber();

-- Migration 0030's mark, which writes the row of every workspace given a pending delivery, also
-- gives a workspace that was not ready its turn by its last turn (last_served_at: its last turn,
-- or when it joined; null, never: longest): among the next ready workspaces the claim reads (at
-- most CLAIM_WORKSPACES, src/webhooks/engine/round-robin.ts), it comes just before the first whose
-- last turn is later than its own; where it already stands before that one, or none is later, it
-- keeps its place (a workspace served since the others' turns stands behind them already). Those
-- of one statement coming before the same workspace stand in order of their last turns, spread
-- over the gap before it. Rows are locked in workspace order, so two statements marking the same
-- workspaces cannot deadlock; the cursor is only read.
create or replace function webhook_workspace_mark_pending() returns trigger language plpgsql as $$
begin
  perform 1
     from webhook_workspace_state s
    where s.workspace_id in (select p.workspace_id from pending_rows p where p.status = 'pending')
    order by s.workspace_id
      for no key update;
  with cursor as materialized (
    select c.queue_position, c.queue_entry from webhook_round_robin c
    union all
    select '-Infinity'::numeric, 0::bigint where not exists (select 1 from webhook_round_robin)
  ),
  marked as materialized (
    select s.workspace_id, s.ready, coalesce(s.last_served_at, '-infinity') as served, s.queue_position, s.queue_entry,
           (s.queue_position, s.queue_entry) <= ((select c.queue_position from cursor c), (select c.queue_entry from cursor c)) as wrapped
      from webhook_workspace_state s
     where s.workspace_id in (select p.workspace_id from pending_rows p where p.status = 'pending')
  ),
  -- The next ready workspaces in the claim's order: after the cursor, then from the ring's start.
  front as materialized (
    select f.*, row_number() over () as n
      from ((select s.queue_position, s.queue_entry, coalesce(s.last_served_at, '-infinity') as served, false as wrapped
               from webhook_workspace_state s
              where s.ready and (s.queue_position, s.queue_entry) > ((select c.queue_position from cursor c), (select c.queue_entry from cursor c))
              order by s.queue_position, s.queue_entry limit 100)
            union all
            (select s.queue_position, s.queue_entry, coalesce(s.last_served_at, '-infinity'), true
               from webhook_workspace_state s
              where s.ready and (s.queue_position, s.queue_entry) <= ((select c.queue_position from cursor c), (select c.queue_entry from cursor c))
              order by s.queue_position, s.queue_entry limit 100)
            limit 100) f
  ),
  -- Each workspace not ready that stands behind the first of the front with a later last turn.
  movers as (
    select m.workspace_id, m.served, m.queue_position, m.queue_entry, t.n, t.queue_position as before_position,
           t.queue_entry as before_entry,
           row_number() over (partition by t.n order by m.served, m.queue_position, m.queue_entry) as k,
           count(*) over (partition by t.n) as movers
      from marked m
      cross join lateral (select f.* from front f where f.served > m.served order by f.n limit 1) t
     where not m.ready and (m.wrapped, m.queue_position, m.queue_entry) > (t.wrapped, t.queue_position, t.queue_entry)
  ),
  -- The gap before each such workspace: from the place just before it (a position below it when
  -- it is the ring's first) to its own.
  gaps as (
    select g.n, g.before_position as hi,
           coalesce((select s.queue_position from webhook_workspace_state s
                      where (s.queue_position, s.queue_entry) < (g.before_position, g.before_entry)
                      order by s.queue_position desc, s.queue_entry desc limit 1),
                    ceil(g.before_position) - 1) as lo
      from (select distinct m.n, m.before_position, m.before_entry from movers m) g
  ),
  placed as (
    select m.workspace_id,
           webhook_ring_between(g.lo + (g.hi - g.lo) * (2 * m.k - 1) / (2 * m.movers + 2),
                                g.lo + (g.hi - g.lo) * (2 * m.k + 1) / (2 * m.movers + 2)) as place
      from movers m join gaps g on g.n = m.n
     where g.lo < g.hi
  )
  update webhook_workspace_state s
     set ready = true,
         queue_position = coalesce(p.place, s.queue_position),
         queue_entry = case when p.place is null then s.queue_entry else nextval('webhook_workspace_queue_entry_seq') end
    from marked w left join placed p on p.workspace_id = w.workspace_id
   where s.workspace_id = w.workspace_id;
  return null;
end
$$;
