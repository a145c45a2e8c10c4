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
  /** SPEC.md "Webhook limits": deliveries started per minute per workspace. */
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
 * - Workspaces come round-robin, longest-waiting first (SPEC.md "Webhook limits"): the state rows
 *   are ordered by queue_position, and every workspace served moves behind all others. Rows of a
 *   workspace another worker is claiming for are skipped (`skip locked`), which also makes the
 *   start count below exact across workers.
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
                        from webhook_deliveries d
                       where d.endpoint_id = r.endpoint_id and d.status = 'pending' and d.next_attempt_at <= ${now}
                       order by d.next_attempt_at, d.id
                       limit ${pending})
                     union all
                     (select g.id, g.workspace_id, g.endpoint_id, g.next_attempt_at
                        from stale g
                       where g.endpoint_id = r.endpoint_id)) u
              order by u.next_attempt_at, u.id`;
  return sql<ClaimedDelivery[]>`
    with recursive live as materialized (
      select l.objid::bigint as worker
        from pg_locks l
       where l.locktype = 'advisory' and l.granted and l.objsubid = 2
         and l.classid::bigint = ${input.workerLockClass}
         and l.database = (select oid from pg_database where datname = current_database())
    ),
    -- Attempts in flight that are stale: the lease has passed or the worker no longer holds its
    -- liveness lock. Read once from webhook_deliveries_sending_idx, which holds only attempts in
    -- flight (at most the fleet's concurrency plus outcomes not yet written), rather than once per
    -- endpoint and once per workspace with nothing pending due (that probe read every attempt in
    -- flight each time); usually empty.
    stale as materialized (
      select f.id, f.workspace_id, f.endpoint_id, f.next_attempt_at
        from webhook_deliveries f
       where f.status = 'sending'
         and (f.lease_until <= ${now}
              or (f.lease_worker is not null and f.lease_worker not in (select worker from live)))
    ),
    -- Workspaces with open deliveries, one index probe each (a loose scan of
    -- webhook_deliveries_workspace_due_idx), so a queue of many idle workspaces costs nothing.
    open_workspaces (workspace_id) as (
      (select d.workspace_id from webhook_deliveries d
        where d.status in ('pending', 'sending') order by d.workspace_id limit 1)
      union all
      select (select d.workspace_id from webhook_deliveries d
               where d.status in ('pending', 'sending') and d.workspace_id > o.workspace_id
               order by d.workspace_id limit 1)
        from open_workspaces o
       where o.workspace_id is not null
    ),
    ws as (
      select s.workspace_id, s.queue_position,
             case when s.window_started_at > ${windowEndedBefore}
                  then ${startsPerWindow} - s.window_starts
                  else ${startsPerWindow} end as capacity
        from webhook_workspace_state s
       -- One array, built once: as a semi-join against the CTE the generic plan compared every
       -- state row with every open workspace (n x n).
       where s.workspace_id = any ((select array_agg(workspace_id) from open_workspaces where workspace_id is not null)::uuid[])
         and (s.window_started_at is null or s.window_started_at <= ${windowEndedBefore}
              or s.window_starts < ${startsPerWindow})
         -- Scalar probes, one per workspace, each reading one index entry: an exists here may be
         -- planned as a join over every due delivery, which grows with the backlog.
         and (coalesce((select true from webhook_deliveries d
                         where d.workspace_id = s.workspace_id and d.status = 'pending' and d.next_attempt_at <= ${now}
                         limit 1), false)
              or s.workspace_id in (select g.workspace_id from stale g))
       order by s.queue_position, s.workspace_id
       limit ${maxWorkspaces}
         for update skip locked
    ),
    -- What each endpoint may still start: its share of attempts in flight (fleet-wide) not taken.
    rooms as materialized (
      select e.id as endpoint_id, ws.workspace_id, ws.capacity, ws.queue_position,
             least(${limit}, greatest(0, ${maxInFlightPerEndpoint} - (
               select count(*) from webhook_deliveries f
                where f.endpoint_id = e.id and f.status = 'sending' and f.lease_until > ${now}
                  and (f.lease_worker is null or f.lease_worker in (select worker from live))))) as room
        from ws
        join webhook_endpoints e on e.workspace_id = ws.workspace_id and e.removed_at is null
    ),
    -- Each endpoint's first due row (if it has room): every workspace with one gets a delivery.
    firsts as materialized (
      select d.id, d.workspace_id, d.endpoint_id, d.next_attempt_at, r.capacity, r.queue_position
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
      select d.id, d.workspace_id, d.endpoint_id, d.next_attempt_at, r.capacity, r.queue_position
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
       order by r.workspace_rank, r.queue_position, r.workspace_id
       limit ${limit}
    ),
    locked as (
      select d.id
        from webhook_deliveries d
       where d.id in (select id from chosen)
         and ((d.status = 'pending' and d.next_attempt_at <= ${now})
              or (d.status = 'sending' and (d.lease_until <= ${now}
                  or (d.lease_worker is not null and d.lease_worker not in (select worker from live)))))
         for update skip locked
    ),
    claimed as (
      update webhook_deliveries d
         set status = 'sending', lease_token = gen_random_uuid(), lease_until = ${leaseUntil},
             lease_worker = ${input.workerId}::int, updated_at = ${now}
        from locked
       where d.id = locked.id
      returning d.id, d.message_id, d.endpoint_id, d.workspace_id, d.attempt_count, d.max_attempts,
                d.resend_count, d.is_test, d.lease_token, d.next_attempt_at
    ),
    served as (
      select c.workspace_id, count(*)::int as started,
             row_number() over (order by ws.queue_position, ws.workspace_id) as turn
        from claimed c
        join ws on ws.workspace_id = c.workspace_id
       group by c.workspace_id, ws.queue_position, ws.workspace_id
    ),
    requeued as (
      update webhook_workspace_state s
         set queue_position = (select coalesce(max(queue_position), 0) from webhook_workspace_state) + served.turn,
             last_served_at = ${now},
             window_started_at = case when s.window_started_at is null or s.window_started_at <= ${windowEndedBefore}
                                      then ${now} else s.window_started_at end,
             window_starts = case when s.window_started_at is null or s.window_started_at <= ${windowEndedBefore}
                                  then served.started else s.window_starts + served.started end
        from served
       where s.workspace_id = served.workspace_id
    )
    select c.id, c.message_id, c.endpoint_id, c.workspace_id, c.attempt_count, c.max_attempts, c.resend_count,
           c.is_test, c.lease_token, c.next_attempt_at as due_at, m.event_recorded_at, m.type, m.body, e.url, e.secret_sealed,
           m.traceparent
      from claimed c
      join webhook_messages m on m.id = c.message_id
      join webhook_endpoints e on e.id = c.endpoint_id`;
}
