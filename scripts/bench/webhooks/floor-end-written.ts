import type { Fragment, Sql } from '../../../src/db/connect.js';
import { MAX_OPEN_DELIVERIES_PER_ENDPOINT, maxInFlightPerEndpoint } from '../../../src/webhooks/engine/policy.js';
import { CLAIM_WORKSPACES } from '../../../src/webhooks/engine/round-robin.js';
import type { ClaimedRow } from './floor-shapes.js';
import { LIFTED_STARTS_PER_MINUTE } from './harness.js';

/**
 * The two floor shapes of the end-written model (floor-shapes.ts): an open delivery is a narrow
 * row that alone the claim and a failed attempt write, and the delivery's row with the delivery
 * lists' indexes is inserted once, when the delivery ends.
 *
 * `end-written-limited` adds the bookkeeping of SPEC.md "Webhook limits" the way that model would
 * keep it, in small rows beside the narrow table rather than counted from indexes of the whole
 * table, so the ladder can tell whether the model leaves room for it:
 *
 * - each endpoint's open deliveries (at most 1,000 are queued) and attempts in flight (its share
 *   of a worker's slots) in one row per endpoint, updated by the fan-out, the claim and the
 *   outcome, each locking those rows in key order so that none can deadlock with another;
 * - each workspace's place in the round-robin and its start window (60 a minute, lifted here as
 *   in the bench's worker) in one row per workspace, taken `for update skip locked` by the claim,
 *   longest-waiting first, probed for a due delivery through an index of the narrow table;
 * - leases that survive a dead worker: the index of leased rows by their end is kept.
 *
 * What it leaves out, as no shape of the ladder has them on its hot path: the excess beyond 1,000
 * open (the bench never reaches it; it would be written to the log as failed), the 1,000 waiting
 * events of a workspace (counted when the outbox is fanned out), taking over passed leases and
 * dead workers' rows, and the retry schedule.
 */

export interface EndWrittenTables {
  open: string;
  queue: string;
  attempts: string;
  source: string;
}

const COUNTS_TABLE = 'bench_floor_endpoint_counts';
const STATE_TABLE = 'bench_floor_workspace_state';
/** The round-robin's turns (named literally where it is used: DDL takes no parameters). */
const TURNS = 'bench_floor_turns';

export async function dropLimitTables(sql: Sql): Promise<void> {
  await sql`drop table if exists ${sql(COUNTS_TABLE)}, ${sql(STATE_TABLE)}`;
  await sql`drop sequence if exists ${sql(TURNS)}`;
}

/** The narrow table of open deliveries, and with `limited` the limits' rows and indexes. */
export async function createEndWritten(sql: Sql, t: EndWrittenTables, limited: boolean): Promise<void> {
  const open = sql(t.open);
  await sql`
    create table ${open} (
      delivery_id uuid constraint bench_floor_open_pkey primary key default gen_random_uuid(),
      message_id uuid not null,
      endpoint_id uuid not null,
      workspace_id uuid not null,
      event_type text not null,
      attempt_count int not null default 0,
      created_at timestamptz not null default now(),
      next_attempt_at timestamptz not null default now(),
      lease_token uuid,
      lease_until timestamptz,
      constraint bench_floor_open_message_endpoint_key unique (message_id, endpoint_id)
    )`;
  if (!limited) {
    await sql`create index bench_floor_open_due_idx on ${open} (next_attempt_at, delivery_id) where lease_token is null`;
    return;
  }
  await sql`create index bench_floor_open_endpoint_due_idx on ${open} (endpoint_id, next_attempt_at, delivery_id) where lease_token is null`;
  await sql`create index bench_floor_open_workspace_due_idx on ${open} (workspace_id, next_attempt_at) where lease_token is null`;
  await sql`create index bench_floor_open_leased_idx on ${open} (lease_until) where lease_token is not null`;
  // Room on each page, so that updates of the counts (no index names them) stay HOT.
  await sql`
    create table ${sql(COUNTS_TABLE)} (
      endpoint_id uuid primary key,
      workspace_id uuid not null,
      open int not null default 0,
      in_flight int not null default 0
    ) with (fillfactor = 50)`;
  await sql`create index bench_floor_endpoint_counts_workspace_idx on ${sql(COUNTS_TABLE)} (workspace_id)`;
  await sql`create sequence ${sql(TURNS)}`;
  await sql`
    create table ${sql(STATE_TABLE)} (
      workspace_id uuid primary key,
      queue_position bigint not null default nextval('bench_floor_turns'),
      window_started_at timestamptz,
      window_starts int not null default 0
    ) with (fillfactor = 50)`;
  await sql`insert into ${sql(COUNTS_TABLE)} (endpoint_id, workspace_id) select distinct endpoint_id, workspace_id from ${sql(t.source)}`;
  await sql`insert into ${sql(STATE_TABLE)} (workspace_id) select distinct workspace_id from ${sql(t.source)}`;
  await sql`analyze ${sql(COUNTS_TABLE)}`;
  await sql`analyze ${sql(STATE_TABLE)}`;
}

/** Endpoints whose counts did not come back to zero once every delivery ended (0 when the bookkeeping is exact). */
export async function unsettledEndpoints(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(COUNTS_TABLE)} where open <> 0 or in_flight <> 0`;
  return row!.n;
}

/** Locks the counts rows of the endpoints `endpoints` selects, in key order. */
const lockCounts = (sql: Sql, endpoints: Fragment) => sql`
  select c.endpoint_id, c.open from ${sql(COUNTS_TABLE)} c
   where c.endpoint_id in (${endpoints})
   order by c.endpoint_id
     for update`;

export async function fanOutEndWritten(sql: Sql, t: EndWrittenTables, limited: boolean, first: number, last: number): Promise<void> {
  if (!limited) {
    await sql`
      insert into ${sql(t.open)} (message_id, endpoint_id, workspace_id, event_type)
      select message_id, endpoint_id, workspace_id, event_type
        from ${sql(t.source)} where seq between ${first} and ${last}
      on conflict (message_id, endpoint_id) do nothing`;
    return;
  }
  await sql`
    with batch as (
      select s.message_id, s.endpoint_id, s.workspace_id, s.event_type,
             row_number() over (partition by s.endpoint_id order by s.seq) as nth
        from ${sql(t.source)} s where s.seq between ${first} and ${last}
    ),
    counts as (${lockCounts(sql, sql`select endpoint_id from batch`)}),
    made as (
      insert into ${sql(t.open)} (message_id, endpoint_id, workspace_id, event_type)
      select b.message_id, b.endpoint_id, b.workspace_id, b.event_type
        from batch b join counts c on c.endpoint_id = b.endpoint_id
       where c.open + b.nth <= ${MAX_OPEN_DELIVERIES_PER_ENDPOINT}
      on conflict (message_id, endpoint_id) do nothing
      returning endpoint_id
    )
    update ${sql(COUNTS_TABLE)} c set open = c.open + m.n
      from (select endpoint_id, count(*)::int as n from made group by endpoint_id) m
     where c.endpoint_id = m.endpoint_id`;
}

/**
 * The `end-written-limited` claim (`end-written` claims as `split` does, floor-shapes.ts
 * claimFloor): up to `limit` deliveries, each endpoint at most its share of a worker of
 * `concurrency` slots.
 */
export async function claimLimited(sql: Sql, t: EndWrittenTables, limit: number, concurrency: number): Promise<ClaimedRow[]> {
  const open = sql(t.open);
  const share = maxInFlightPerEndpoint(concurrency);
  return sql<ClaimedRow[]>`
    with ws as (
      select s.workspace_id, s.queue_position,
             case when s.window_started_at > now() - interval '1 minute'
                  then ${LIFTED_STARTS_PER_MINUTE} - s.window_starts else ${LIFTED_STARTS_PER_MINUTE} end as capacity
        from ${sql(STATE_TABLE)} s
       where (s.window_started_at is null or s.window_started_at <= now() - interval '1 minute'
              or s.window_starts < ${LIFTED_STARTS_PER_MINUTE})
         -- A scalar probe reading one index entry, as the product's claim has it: an exists here
         -- was planned as a join over every due delivery.
         and coalesce((select true from ${open} o
                        where o.workspace_id = s.workspace_id and o.lease_token is null and o.next_attempt_at <= now()
                        limit 1), false)
       order by s.queue_position
       limit ${CLAIM_WORKSPACES}
         for update skip locked
    ),
    rooms as materialized (
      select c.endpoint_id, ws.workspace_id, ws.capacity, ws.queue_position,
             least(${limit}, ${share} - c.in_flight) as room
        from ws join ${sql(COUNTS_TABLE)} c on c.workspace_id = ws.workspace_id
       where c.in_flight < ${share}
    ),
    -- The batch opens with one delivery of each of the n workspaces, so no endpoint gives more
    -- than limit - n + 1 (the product's claim reads no more either).
    reach as (select greatest(1, ${limit} - count(*) + 1) as per_endpoint from ws),
    picks as (
      select d.delivery_id, r.workspace_id, r.endpoint_id, d.next_attempt_at, r.capacity, r.queue_position
        from rooms r
       cross join lateral (
             select o.delivery_id, o.next_attempt_at from ${open} o
              where o.endpoint_id = r.endpoint_id and o.lease_token is null and o.next_attempt_at <= now()
              order by o.next_attempt_at, o.delivery_id
              limit least(r.room, (select per_endpoint from reach))) d
    ),
    -- Ranked and chosen as the product's claim does (src/webhooks/sql/claimDeliveries.ts).
    ranked as (
      select r.*, row_number() over (partition by r.workspace_id
                                     order by r.endpoint_rank, r.next_attempt_at, r.delivery_id) as workspace_rank
        from (select p.*, row_number() over (partition by p.endpoint_id
                                             order by p.next_attempt_at, p.delivery_id) as endpoint_rank
                from picks p) r
    ),
    chosen as (
      select r.delivery_id from ranked r
       where r.workspace_rank <= r.capacity
       order by r.workspace_rank, r.queue_position, r.workspace_id
       limit ${limit}
    ),
    leased as (
      update ${open} o set lease_token = gen_random_uuid(), lease_until = now() + interval '5 minutes'
        from chosen c
       where o.delivery_id = c.delivery_id and o.lease_token is null
      returning o.delivery_id, o.message_id, o.endpoint_id, o.workspace_id, o.lease_token
    ),
    per_endpoint as (select endpoint_id, count(*)::int as n from leased group by endpoint_id),
    counts as (${lockCounts(sql, sql`select endpoint_id from per_endpoint`)}),
    counted as (
      update ${sql(COUNTS_TABLE)} c set in_flight = c.in_flight + p.n
        from per_endpoint p
       where c.endpoint_id = p.endpoint_id and c.endpoint_id in (select endpoint_id from counts)
    ),
    served as (
      select l.workspace_id, count(*)::int as started from leased l group by l.workspace_id
    ),
    requeued as (
      update ${sql(STATE_TABLE)} s
         set queue_position = nextval('bench_floor_turns'),
             window_started_at = case when s.window_started_at is null or s.window_started_at <= now() - interval '1 minute'
                                      then now() else s.window_started_at end,
             window_starts = case when s.window_started_at is null or s.window_started_at <= now() - interval '1 minute'
                                  then served.started else s.window_starts + served.started end
        from served
       where s.workspace_id = served.workspace_id
    )
    select l.delivery_id as id, l.endpoint_id, e.url, l.message_id, m.body, l.lease_token
      from leased l
      join webhook_messages m on m.id = l.message_id
      join webhook_endpoints e on e.id = l.endpoint_id`;
}

/**
 * One batch of outcomes (`input`: the unnest of floor-shapes.ts recordFloor): the lease is checked
 * and ended on the narrow row, the delivery's row first written for those that ended, and with
 * `limited` their endpoints' counts settled.
 */
export async function recordEndWritten(sql: Sql, t: EndWrittenTables, limited: boolean, input: Fragment): Promise<void> {
  const open = sql(t.open);
  const settled = limited
    ? sql`,
      per_endpoint as (
        select endpoint_id, count(*)::int as settled, count(*) filter (where closed)::int as closed
          from (select endpoint_id, true as closed from ended union all select endpoint_id, false from released) x
         group by endpoint_id
      ),
      counts as (${lockCounts(sql, sql`select endpoint_id from per_endpoint`)}),
      counted as (
        update ${sql(COUNTS_TABLE)} c set in_flight = c.in_flight - p.settled, open = c.open - p.closed
          from per_endpoint p
         where c.endpoint_id = p.endpoint_id and c.endpoint_id in (select endpoint_id from counts)
      )`
    : sql``;
  await sql`
    with input as (${input}),
    ended as (
      delete from ${open} o using input i
       where o.delivery_id = i.id and o.lease_token = i.lease_token and i.ok
      returning o.*
    ),
    released as (
      update ${open} o set lease_token = null, lease_until = null, attempt_count = o.attempt_count + 1,
             next_attempt_at = now() + interval '1 minute'
        from input i
       where o.delivery_id = i.id and o.lease_token = i.lease_token and not i.ok
      returning o.endpoint_id
    ),
    logged as (
      insert into ${sql(t.queue)}
        (id, message_id, endpoint_id, workspace_id, event_type, status, attempt_count, max_attempts,
         next_attempt_at, created_at, updated_at, finished_at)
      select e.delivery_id, e.message_id, e.endpoint_id, e.workspace_id, e.event_type, 'succeeded', e.attempt_count + 1, 8,
             e.next_attempt_at, e.created_at, now(), now()
        from ended e
    )${settled}
    insert into ${sql(t.attempts)} (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
    select i.id, i.endpoint_id, 1, i.attempted_at, i.ok, i.status_code, i.duration_ms from input i`;
}
