import type { Fragment, Queryable } from '../../db/connect.js';
import type { DevListenTarget } from './devListen.js';

export interface ClaimedDelivery {
  id: string;
  message_id: string;
  endpoint_id: string;
  workspace_id: string;
  /** Attempts recorded before this one. */
  attempt_count: number;
  max_attempts: number;
  resend_count: number;
  is_test: boolean;
  lease_token: string;
  /** When this attempt was due (the delivery's next_attempt_at): the start of its delivery lag. */
  due_at: Date;
  /** When the event's transaction recorded it (webhook_messages.event_recorded_at); null for ping. */
  event_recorded_at: Date | null;
  type: string;
  body: string;
  url: string;
  secret_sealed: Buffer;
  /** The traceparent of the action behind the event (webhook_messages), for the attempt's span link. */
  traceparent: string | null;
  /** Set by claimBatch, only while development mappings are enabled: the endpoint's `listen` target. */
  dev_listen?: DevListenTarget;
}

export interface ClaimInput {
  now: Date;
  /** Free attempt slots of the calling worker. */
  limit: number;
  leaseUntil: Date;
  /** docs/webhook-delivery.md "Limits": deliveries started per minute per workspace. */
  startsPerWindow: number;
  /** Start of the current rate window if it began at or before this instant it has ended. */
  windowEndedBefore: Date;
  maxInFlightPerEndpoint: number;
  maxWorkspaces: number;
  /** The claiming worker's liveness id (src/webhooks/engine/liveness.ts), written on its claims; null: none. */
  workerId: number | null;
  /** First key of the liveness locks (WORKER_LOCK_CLASS). */
  workerLockClass: number;
}

/**
 * Claims due deliveries for attempts, in one statement (its part of the round-robin: see
 * round-robin.ts):
 *
 * - Workspaces come round-robin, longest-waiting first (docs/webhook-delivery.md "Fairness"): the state rows
 *   are a ring ordered by queue_position (migration 0037), read from just after the cursor
 *   (webhook_round_robin) and wrapping round, and the cursor moves onto the last workspace served,
 *   so every workspace served is behind all others without its place being written. Rows of a
 *   workspace another worker is claiming for are skipped (`skip locked`), which also makes the
 *   start count below exact across workers.
 * - Only workspaces that may have work are read (migration 0030): the ready ones, in queue order,
 *   up to the last one taken; those whose set-aside time has come (`woken`); those with a stale
 *   attempt. A workspace among them found with nothing it may start is set aside (`settled`),
 *   so tens of thousands of idle or waiting workspaces behind the front cost nothing.
 * - Each workspace gets at most what its start-rate window has left; the excess stays pending and
 *   waits for the next window ("excess waits, is not dropped"). Every attempt counts as a start.
 * - Within a workspace endpoints alternate, and an endpoint already holding its share of
 *   attempts in flight (fleet-wide) gets none, so a slow endpoint never holds back another.
 * - A `sending` row whose lease has passed belongs to a worker that died mid-attempt; it is
 *   claimed again like a due one (at-least-once, same webhook-id). So is one whose worker no
 *   longer holds its liveness lock (`live`: the session is gone), at once, and such rows do not
 *   count as in flight: a killed worker does not hold its endpoints back until its leases end.
 *
 * (PostgreSQL runs the data-modifying `requeued` step whether or not the final select reads it.)
 *
 * The batch interleaves workspaces: first one delivery of each, then a second of each, and so on.
 */
export async function claimDeliveries(sql: Queryable, input: ClaimInput): Promise<ClaimedDelivery[]> {
  if (input.limit <= 0) return [];
  return claimStatement(sql, input);
}

/** The claim's one statement, not yet run: claimDeliveries runs it; a test may EXPLAIN it. */
export function claimStatement(sql: Queryable, input: ClaimInput) {
  const { now, limit, leaseUntil, startsPerWindow, windowEndedBefore, maxInFlightPerEndpoint, maxWorkspaces } = input;
  // The due rows of the endpoint of `rooms r`, oldest first: pending ones due now (at most
  // `pending` of them) and stale `sending` ones (lease passed or worker gone, from `stale`).
  // firsts takes the first of them, picks the rest.
  const dueRows = (pending: Fragment) => sql`
             select u.id, u.workspace_id, u.endpoint_id, u.next_attempt_at
               from ((select d.id, d.workspace_id, d.endpoint_id, d.next_attempt_at
                        from webhook_queue d
                       where d.endpoint_id = r.endpoint_id and d.status = 'pending' and d.next_attempt_at <= ${now}
                       order by d.next_attempt_at, d.id
                       limit ${pending})
                     union all
                     (select g.id, g.workspace_id, g.endpoint_id, g.next_attempt_at
                        from stale g
                       where g.endpoint_id = r.endpoint_id)) u
              order by u.next_attempt_at, u.id`;
  // docs/webhook-delivery.md "Limits": 60 starts per minute per workspace; a window that began at or
  // before windowEndedBefore has ended.
  const hasRoom = sql`(s.window_started_at is null or s.window_started_at <= ${windowEndedBefore}
                       or s.window_starts < ${startsPerWindow})`;
  // A workspace may start a delivery: room in its window, and a pending delivery due (a scalar
  // probe reading one index entry: an exists here may be planned as a join over every due
  // delivery, which grows with the backlog) or a stale attempt to take over.
  const mayStart = sql`(${hasRoom}
         and (coalesce((select true from webhook_queue d
                         where d.workspace_id = s.workspace_id and d.status = 'pending' and d.next_attempt_at <= ${now}
                         limit 1), false)
              or s.workspace_id in (select g.workspace_id from stale g)))`;
  // Whether the place of row x lies in what the front read (front_end): after the cursor up to
  // its first bound, or from the ring's start up to its second.
  // Places are compared with scalar subqueries of the one-row CTEs, which PostgreSQL runs once and
  // can bound an index range with (a row subquery or a join it cannot).
  const cursorPlace = sql`((select c.queue_position from cursor c), (select c.queue_entry from cursor c))`;
  const afterEnd = sql`((select f.after_pos from front_end f), (select f.after_entry from front_end f))`;
  const wrappedEnd = sql`((select f.wrapped_pos from front_end f), (select f.wrapped_entry from front_end f))`;
  const inFront = (x: Fragment) => sql`
         (((${x}.queue_position, ${x}.queue_entry) > ${cursorPlace} and (${x}.queue_position, ${x}.queue_entry) <= ${afterEnd})
          or (${x}.queue_position, ${x}.queue_entry) <= ${wrappedEnd})`;
  return sql<ClaimedDelivery[]>`
    with live as materialized (
      select l.objid::bigint as worker
        from pg_locks l
       where l.locktype = 'advisory' and l.granted and l.objsubid = 2
         and l.classid::bigint = ${input.workerLockClass}
         and l.database = (select oid from pg_database where datname = current_database())
    ),
    -- Attempts in flight that are stale: the lease has passed or the worker no longer holds its
    -- liveness lock. Read once from webhook_in_flight (migration 0036), which holds only attempts
    -- in flight (at most the fleet's concurrency plus outcomes not yet written), rather than once
    -- per endpoint and once per workspace with nothing pending due; usually empty. The locked
    -- step below checks each against its queue row.
    stale as materialized (
      select f.delivery_id as id, f.workspace_id, f.endpoint_id, f.next_attempt_at
        from webhook_in_flight f
       where f.lease_until <= ${now}
          or (f.lease_worker is not null and f.lease_worker not in (select worker from live))
    ),
    -- The ring's cursor (migration 0037): the place of the last workspace served. A place is
    -- (queue_position, queue_entry), the order the ring is read in: positions are each
    -- workspace's own (migration 0038), but a worker of the release before may still give two
    -- the same, and a bound on the position alone would read all that share it. No cursor (a
    -- truncated table): before every place.
    cursor as materialized (
      select c.queue_position, c.queue_entry from webhook_round_robin c
      union all
      select '-Infinity'::numeric, 0::bigint where not exists (select 1 from webhook_round_robin)
    ),
    -- The front of the round-robin queue: ready workspaces (migration 0030) in ring order from
    -- webhook_workspace_state_ready_idx, first those after the cursor, then (wrapped) those from
    -- the ring's start up to it; the first maxWorkspaces that may start a delivery now, so the
    -- workspaces behind them cost nothing however many wait. The wrapped part runs only when the
    -- first gives fewer.
    ready_after as (
      select s.workspace_id, s.queue_position, s.queue_entry, s.window_started_at, s.window_starts, s.xmin::text as version, false as wrapped
        from webhook_workspace_state s
       where (s.queue_position, s.queue_entry) > ${cursorPlace} and s.ready and ${mayStart}
       order by s.queue_position, s.queue_entry
       limit ${maxWorkspaces}
         for update skip locked
    ),
    ready_wrapped as (
      select s.workspace_id, s.queue_position, s.queue_entry, s.window_started_at, s.window_starts, s.xmin::text as version, true as wrapped
        from webhook_workspace_state s
       where (s.queue_position, s.queue_entry) <= ${cursorPlace} and s.ready and ${mayStart}
       order by s.queue_position, s.queue_entry
       limit ${maxWorkspaces}
         for update skip locked
    ),
    ready_ws as (
      select * from ready_after
      union all
      select * from ready_wrapped
      limit ${maxWorkspaces}
    ),
    -- Workspaces the claim set aside until next_due_at (a retry's pause, a full start-rate
    -- window), now come: each is taken up once and made ready, and looked at now only if it
    -- stands before the front's last workspace (woken_front).
    woken as materialized (
      select s.workspace_id, s.queue_position, s.queue_entry, s.window_started_at, s.window_starts, s.xmin::text as version,
             (s.queue_position, s.queue_entry) <= ${cursorPlace} as wrapped
        from webhook_workspace_state s
       where not s.ready and s.next_due_at <= ${now}
         for update skip locked
    ),
    -- How far round the ring the front read, as two ranges of places: after the cursor up to
    -- (after_pos, after_entry), and from the ring's start up to (wrapped_pos, wrapped_entry), empty
    -- unless the front wrapped. All of the ring when it found fewer than it may take.
    front_end as materialized (
      select case when e.all_read or e.wrapped then 'Infinity'::numeric else e.queue_position end as after_pos,
             case when e.all_read or e.wrapped then 0 else e.queue_entry end as after_entry,
             case when e.all_read then c.queue_position when e.wrapped then e.queue_position else '-Infinity'::numeric end as wrapped_pos,
             case when e.all_read then c.queue_entry when e.wrapped then e.queue_entry else 0 end as wrapped_entry
        from cursor c
       cross join (select (select count(*) from ready_ws) < ${maxWorkspaces} as all_read, l.*
                     from (select 1) one
                     left join lateral (select r.queue_position, r.queue_entry, r.wrapped from ready_ws r
                                         order by r.wrapped desc, r.queue_position desc, r.queue_entry desc limit 1) l on true) e
    ),
    woken_front as (
      select s.workspace_id, s.queue_position, s.queue_entry, s.window_started_at, s.window_starts, s.version, s.wrapped
        from woken s
       where ${inFront(sql`s`)} and ${mayStart}
    ),
    -- Workspaces not ready with a stale attempt to take over (at most the fleet's concurrency).
    stale_ws as (
      select s.workspace_id, s.queue_position, s.queue_entry, s.window_started_at, s.window_starts, s.xmin::text as version,
             (s.queue_position, s.queue_entry) <= ${cursorPlace} as wrapped
        from webhook_workspace_state s
       where s.workspace_id = any ((select array_agg(g.workspace_id) from stale g)::uuid[])
         and not s.ready and (s.next_due_at is null or s.next_due_at > ${now})
         and ${hasRoom}
         for update skip locked
    ),
    -- place: the workspace's turn in this claim, in ring order from the cursor.
    ws as materialized (
      select c.workspace_id, c.queue_position, c.queue_entry, c.window_started_at, c.window_starts, c.version, c.in_front,
             row_number() over (order by c.wrapped, c.queue_position, c.queue_entry) as place,
             case when c.window_started_at > ${windowEndedBefore}
                  then ${startsPerWindow} - c.window_starts
                  else ${startsPerWindow} end as capacity
        from (select r.*, true as in_front from ready_ws r
              union all
              select w.*, true from woken_front w
              union all
              select g.*, ${inFront(sql`g`)} from stale_ws g) c
       order by c.wrapped, c.queue_position, c.queue_entry
       limit ${maxWorkspaces}
    ),
    -- Ready workspaces the front passed over, which may start nothing now (their deliveries were
    -- taken, cancelled or are in a retry's pause, or their window is full): settled below, so
    -- each is passed over once.
    -- Read as the front's two ranges, each a range of webhook_workspace_state_ready_idx.
    passed_after as (
      select s.workspace_id, s.queue_position, s.queue_entry, s.window_started_at, s.window_starts, s.xmin::text as version, false as wrapped
        from webhook_workspace_state s
       where (s.queue_position, s.queue_entry) > ${cursorPlace} and (s.queue_position, s.queue_entry) <= ${afterEnd}
         and s.ready
         and s.workspace_id not in (select r.workspace_id from ready_ws r)
         and not ${mayStart}
         for update skip locked
    ),
    passed_wrapped as (
      select s.workspace_id, s.queue_position, s.queue_entry, s.window_started_at, s.window_starts, s.xmin::text as version, true as wrapped
        from webhook_workspace_state s
       where (s.queue_position, s.queue_entry) <= ${wrappedEnd}
         and s.ready
         and s.workspace_id not in (select r.workspace_id from ready_ws r)
         and not ${mayStart}
         for update skip locked
    ),
    -- What each endpoint may still start: its share of attempts in flight (fleet-wide) not taken,
    -- counted in webhook_in_flight (migration 0036), which the queue's triggers keep.
    rooms as materialized (
      select e.id as endpoint_id, ws.workspace_id, ws.capacity, ws.place,
             least(${limit}, greatest(0, ${maxInFlightPerEndpoint} - (
               select count(*) from webhook_in_flight f
                where f.endpoint_id = e.id and f.lease_until > ${now}
                  and (f.lease_worker is null or f.lease_worker in (select worker from live))))) as room
        from ws
        join webhook_endpoints e on e.workspace_id = ws.workspace_id and e.removed_at is null
    ),
    -- Each endpoint's first due row (if it has room): every workspace with one gets a delivery.
    firsts as materialized (
      select d.id, d.workspace_id, d.endpoint_id, d.next_attempt_at, r.capacity, r.place
        from rooms r
       cross join lateral (
             ${dueRows(sql`least(r.room, 1)`)}
              limit least(r.room, 1)
           ) d
    ),
    -- The most rows one endpoint can give: the batch opens with one delivery of each of the n
    -- workspaces in firsts (each has capacity), so a workspace's r-th one is taken only if
    -- n + r - 1 <= limit, and an endpoint's k-th row is at least its workspace's k-th. Reading no
    -- more keeps a claim from reading and ranking every endpoint's full share (16 x 200 rows for
    -- 64 taken) when all have a backlog; with n >= limit it reads the first rows alone.
    reach as (
      select greatest(1, ${limit} - count(distinct f.workspace_id) + 1) as per_endpoint from firsts f
    ),
    picks as (
      select * from firsts
      union all
      select d.id, d.workspace_id, d.endpoint_id, d.next_attempt_at, r.capacity, r.place
        from rooms r
       cross join lateral (select least(r.room, (select per_endpoint from reach)) as room) share
       cross join lateral (
             ${dueRows(sql`share.room`)}
              offset 1 limit share.room - 1
           ) d
       where share.room > 1
    ),
    ranked as (
      select r.*, row_number() over (partition by r.workspace_id
                                     order by r.endpoint_rank, r.next_attempt_at, r.id) as workspace_rank
        from (select p.*, row_number() over (partition by p.endpoint_id
                                             order by p.next_attempt_at, p.id) as endpoint_rank
                from picks p) r
    ),
    chosen as (
      select r.id
        from ranked r
       where r.workspace_rank <= r.capacity
       order by r.workspace_rank, r.place
       limit ${limit}
    ),
    locked as (
      select d.id
        from webhook_queue d
       where d.id in (select id from chosen)
         and ((d.status = 'pending' and d.next_attempt_at <= ${now})
              or (d.status = 'sending' and (d.lease_until <= ${now}
                  or (d.lease_worker is not null and d.lease_worker not in (select worker from live)))))
         for update skip locked
    ),
    -- The lease is written on the queue row in columns no index of the queue reads (migration
    -- 0036), so the update is HOT when the page has room; the queue's trigger records the attempt
    -- in webhook_in_flight.
    claimed as (
      update webhook_queue d
         set status = 'sending', lease_token = gen_random_uuid(), lease_until = ${leaseUntil},
             lease_worker = ${input.workerId}::int, updated_at = ${now}
        from locked
       where d.id = locked.id
      returning d.id, d.message_id, d.endpoint_id, d.workspace_id, d.attempt_count, d.max_attempts,
                d.resend_count, d.is_test, d.lease_token, d.next_attempt_at, d.created_at
    ),
    served as (
      select c.workspace_id, count(*)::int as started
        from claimed c
       group by c.workspace_id
    ),
    -- The cursor onto the last workspace served in ring order: those served are now behind all
    -- others, their places unchanged. A workspace served only for a stale attempt beyond the
    -- front does not move it (the workspaces between would lose their turn).
    advanced as (
      insert into webhook_round_robin as r (id, queue_position, queue_entry)
      select true, w.queue_position, w.queue_entry
        from ws w
       where w.in_front and w.workspace_id in (select workspace_id from served)
       order by w.place desc
       limit 1
      on conflict (id) do update set queue_position = excluded.queue_position, queue_entry = excluded.queue_entry
    ),
    -- Every workspace this claim served, woke or passed over. checked: one to settle now (passed
    -- over, or woken before the front's last workspace and not served). A served one stays ready
    -- until a claim reaches it again and finds it with nothing to start; a woken one behind the
    -- front is only made ready.
    looked as (
      select l.workspace_id, l.window_started_at, l.window_starts, l.version, sv.started,
             sv.started is null and (l.passed or ${inFront(sql`l`)}) as checked
        from (select w.*, false as passed from woken w
              union all
              select p.*, true from passed_after p
              union all
              select p.*, true from passed_wrapped p
              union all
              select w.workspace_id, w.queue_position, w.queue_entry, w.window_started_at, w.window_starts, w.version,
                     (w.queue_position, w.queue_entry) <= ${cursorPlace}, false
                from ws w
               where w.workspace_id in (select workspace_id from served)
                 and w.workspace_id not in (select workspace_id from woken)) l
        left join served sv on sv.workspace_id = l.workspace_id
    ),
    -- Whether each one checked may start a delivery, from this statement's snapshot: a pending
    -- delivery due (or a stale attempt), and room in its window. If not, it leaves the ready ones
    -- until next_due_at: its earliest pending delivery, no earlier than its window's end; null
    -- with nothing pending (a failed attempt's reschedule makes it ready again). A row written
    -- since the snapshot stays ready: the trigger of migration 0030 marked work this snapshot
    -- cannot see (the locked row's version differs from the snapshot's).
    settled as materialized (
      select l.*,
             not l.checked
             or coalesce(l.version <> (select x.xmin::text from webhook_workspace_state x where x.workspace_id = l.workspace_id), true)
             or ((coalesce(e.earliest <= ${now}, false) or l.workspace_id in (select g.workspace_id from stale g))
                 and (l.window_started_at is null or l.window_started_at <= ${windowEndedBefore}
                      or l.window_starts < ${startsPerWindow})) as ready,
             case when l.window_started_at > ${windowEndedBefore} and l.window_starts >= ${startsPerWindow}
                  then greatest(e.earliest, l.window_started_at + (${now}::timestamptz - ${windowEndedBefore}::timestamptz))
                  else e.earliest end as next_due_at
        from looked l
       cross join lateral (
             select min(d.next_attempt_at) as earliest
               from webhook_queue d
              where l.checked and d.workspace_id = l.workspace_id and d.status = 'pending'
           ) e
    ),
    requeued as (
      -- No indexed column changes for a workspace served (its place stays; ready stays true), so
      -- the update is HOT when the page has room (migration 0037's fillfactor).
      update webhook_workspace_state s
         set last_served_at = case when t.started is null then s.last_served_at else ${now} end,
             window_started_at = case when t.started is null or (s.window_started_at > ${windowEndedBefore}) then s.window_started_at
                                      else ${now} end,
             window_starts = case when t.started is null then s.window_starts
                                  when s.window_started_at > ${windowEndedBefore} then s.window_starts + t.started
                                  else t.started end,
             ready = t.ready,
             next_due_at = case when t.ready then s.next_due_at else t.next_due_at end
        from settled t
       -- One array, built once, so the rows are found by key: joined to the CTE, the plan read
       -- every workspace's row.
       where s.workspace_id = any ((select array_agg(workspace_id) from settled)::uuid[])
         and s.workspace_id = t.workspace_id
    )
    select c.id, c.message_id, c.endpoint_id, c.workspace_id, c.attempt_count, c.max_attempts, c.resend_count,
           c.is_test, c.lease_token, c.next_attempt_at as due_at, m.event_recorded_at, m.type, m.body, e.url, e.secret_sealed,
           m.traceparent
      from claimed c
      -- A delivery's created_at is its message's: a probe per claimed delivery, which run-time
      -- pruning sends to one day's partition of webhook_messages (migration 0032).
      cross join lateral (select m.event_recorded_at, m.type, m.body, m.traceparent from webhook_messages m
                           where m.id = c.message_id and m.created_at = c.created_at limit 1) m
      join webhook_endpoints e on e.id = c.endpoint_id`;
}
