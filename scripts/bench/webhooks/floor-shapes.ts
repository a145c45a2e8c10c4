import type { Sql } from '../../../src/db/connect.js';
import {
  claimLimited,
  createEndWritten,
  dropLimitTables,
  fanOutEndWritten,
  recordEndWritten,
  unsettledEndpoints,
  type EndWrittenTables,
} from './floor-end-written.js';
import { sentDeliveries } from './sent-deliveries.js';

/**
 * The shapes of the PostgreSQL queue floor (floor.ts, floor-queue.ts), from the simplest durable
 * queue up to the product's own tables, so the worker's gap below the floor can be split into
 * what each layer costs (`scripts/bench/queue-ladder.ts`, docs/performance.md):
 *
 * - `bare`: the floor `npm run bench` reports. A narrow table with its rows (url and body
 *   included) written before the clock starts; the claim and each outcome batch are one update.
 * - `writes`: what SPEC.md makes every design write, on narrow tables: the deliveries are
 *   inserted inside the clock, one statement per fan-out batch of the worker's size (one delivery
 *   per message and endpoint); the claim reads the body and the address from the message and the
 *   endpoint; each outcome batch also inserts one attempt row per attempt ("Delivery, retries,
 *   pause": the delivery log shows every attempt), in the same statement.
 * - `product`: the same statements on copies of `webhook_deliveries` and `webhook_attempts`
 *   (every index, check and default, plus the foreign keys the product declares), writing what
 *   the product writes (lease token and time on the claim, finished_at and the lease cleared on
 *   the outcome), plus one index of the floor's own for its due order.
 *   What is left between this rung and the worker is the claim's and the outcome's bookkeeping
 *   of SPEC.md "Webhook limits" and the worker's own code.
 * - `product-without-lists`: `product` without the six indexes of the delivery lists
 *   (`*_log_idx`, migration 0011: the console's delivery log and its filters), to tell their
 *   share of the product's tables.
 * - `split`: not a layer but the data model the ladder points to. The delivery's row, on a copy
 *   of the product's table without the four indexes that serve only open deliveries, is written
 *   when the delivery is made and when it ends; the open deliveries' changing state (due time,
 *   lease) lives in a narrow table of its own, which alone the claim reads and writes, and from
 *   which the outcome deletes the row. (The log row stays `pending` while its attempt is in
 *   flight; a product on this model would read `sending` from the lease.)
 * - `end-written`: the leanest model that keeps the delivery log's rows in PostgreSQL as the
 *   console reads them. An open delivery is only a narrow row (what the log row will need, its
 *   due time, its lease, the message-and-endpoint key); the claim and a failed attempt touch only
 *   that row. The delivery's row, with the delivery lists' indexes, is written once, when the
 *   delivery ends, in the outcome's statement that deletes the narrow row. (Attempt rows then
 *   come before their delivery's row, so the attempts' key to it is left out; a product on this
 *   model would list open deliveries from the narrow table.)
 * - `end-written-limited`: `end-written` with the bookkeeping of SPEC.md "Webhook limits" kept
 *   the way that model would keep it, in small rows (floor-end-written.ts); the one exception to
 *   the rule below.
 *
 * No other shape applies any webhook limit, and none a lease expiry or retry schedule. The
 * tables are the bench's own (made and dropped by floor.ts), never the product's.
 */
export const FLOOR_SHAPES = ['bare', 'writes', 'product-without-lists', 'product', 'split', 'end-written', 'end-written-limited'] as const;
export type FloorShape = (typeof FLOOR_SHAPES)[number];

export const FLOOR_TABLE = 'bench_floor_queue';
const ATTEMPTS_TABLE = 'bench_floor_attempts';
/** The open deliveries of the `split` and both `end-written` shapes. */
const OPEN_TABLE = 'bench_floor_open';
/** The product's indexes that hold only open deliveries (the claim's and the limits'), which `split` and `end-written` move off the delivery's row. */
const OPEN_ONLY_INDEXES = ['_open_idx', '_workspace_due_idx', '_waiting_idx', '_sending_idx'];
/** The (message, endpoint) pairs the `writes` and `product` shapes insert inside the clock. */
const SOURCE_TABLE = 'bench_floor_source';
/** The worker's fan-out batch (src/webhooks/engine/round-robin.ts FANOUT_BATCH_SIZE) x 2 endpoints. */
export const FANOUT_ROWS = 400;

export interface ClaimedRow {
  id: string;
  endpoint_id: string;
  url: string;
  message_id: string;
  body: string;
  lease_token: string | null;
}

export interface Outcome {
  row: ClaimedRow;
  ok: boolean;
  statusCode: number | null;
  attemptedAt: Date;
  durationMs: number;
}

export function isFloorShape(value: string): value is FloorShape {
  return (FLOOR_SHAPES as readonly string[]).includes(value);
}

export async function dropFloorTables(sql: Sql): Promise<void> {
  await dropLimitTables(sql);
  await sql`drop table if exists ${sql(OPEN_TABLE)}, ${sql(ATTEMPTS_TABLE)}, ${sql(FLOOR_TABLE)}, ${sql(SOURCE_TABLE)}`;
}

/**
 * The throughput run's deliveries to answering endpoints, in the baseline's order, `count` of them:
 * written into the queue (`bare`) or into the source the fan-out reads (the others). Returns how
 * many the run will deliver.
 */
export async function fillFloor(sql: Sql, shape: FloorShape, count: number): Promise<number> {
  await dropFloorTables(sql);
  const queue = sql(FLOOR_TABLE);
  const picked = sentDeliveries(sql, count);
  if (shape === 'bare') {
    await sql`
      create table ${queue} (
        id bigint generated always as identity constraint bench_floor_queue_pkey primary key,
        endpoint_id uuid not null,
        url text not null,
        message_id uuid not null,
        body text not null,
        status text not null default 'pending',
        attempts int not null default 0,
        next_attempt_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`;
    await sql`create index bench_floor_queue_due_idx on ${queue} (next_attempt_at, id) where status = 'pending'`;
    const rows = await sql`insert into ${queue} (endpoint_id, url, message_id, body) select p.endpoint_id, p.url, p.message_id, p.body from (${picked}) p`;
    await sql`analyze ${queue}`;
    return rows.count;
  }

  const source = sql(SOURCE_TABLE);
  const attempts = sql(ATTEMPTS_TABLE);
  await sql`
    create table ${source} (
      seq int generated always as identity primary key,
      message_id uuid not null, endpoint_id uuid not null, workspace_id uuid not null, event_type text not null
    )`;
  const rows = await sql`
    insert into ${source} (message_id, endpoint_id, workspace_id, event_type)
    select p.message_id, p.endpoint_id, p.workspace_id, p.event_type from (${picked}) p`;
  if (shape === 'writes') {
    await sql`
      create table ${queue} (
        id bigint generated always as identity constraint bench_floor_queue_pkey primary key,
        message_id uuid not null,
        endpoint_id uuid not null,
        status text not null default 'pending',
        attempts int not null default 0,
        next_attempt_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`;
    await sql`
      create table ${attempts} (
        id bigint generated always as identity primary key,
        delivery_id bigint not null,
        attempted_at timestamptz not null,
        succeeded boolean not null,
        status_code int,
        duration_ms int not null
      )`;
    await sql`create index bench_floor_attempts_delivery_idx on ${attempts} (delivery_id, id)`;
  } else {
    // The product's indexes, renamed onto the copy; the lean shape leaves out the delivery lists',
    // the split one those of open deliveries.
    await sql`create table ${queue} (like webhook_deliveries including all excluding indexes)`;
    const indexes = await sql<{ indexname: string; indexdef: string }[]>`
      select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = 'webhook_deliveries'`;
    for (const { indexname, indexdef } of indexes) {
      if (shape === 'product-without-lists' && indexname.endsWith('_log_idx')) continue;
      if (opensApart(shape) && OPEN_ONLY_INDEXES.some((suffix) => indexname.endsWith(suffix))) continue;
      await sql.unsafe(indexdef.replaceAll('webhook_deliveries', FLOOR_TABLE));
    }
    await sql`
      alter table ${queue}
        add foreign key (message_id) references webhook_messages (id) on delete cascade,
        add foreign key (endpoint_id) references webhook_endpoints (id) on delete cascade,
        add foreign key (workspace_id) references workspaces (id) on delete cascade`;
    await sql`create table ${attempts} (like webhook_attempts including all)`;
    await sql`alter table ${attempts} add foreign key (endpoint_id) references webhook_endpoints (id) on delete cascade`;
    if (!writtenAtEnd(shape)) await sql`alter table ${attempts} add foreign key (delivery_id) references ${queue} (id) on delete cascade`;
  }
  if (writtenAtEnd(shape)) {
    await createEndWritten(sql, END_WRITTEN, shape === 'end-written-limited');
  } else if (shape === 'split') {
    const open = sql(OPEN_TABLE);
    await sql`
      create table ${open} (
        delivery_id uuid constraint bench_floor_open_pkey primary key,
        message_id uuid not null,
        endpoint_id uuid not null,
        next_attempt_at timestamptz not null default now(),
        lease_token uuid,
        lease_until timestamptz
      )`;
    await sql`create index bench_floor_open_due_idx on ${open} (next_attempt_at, delivery_id) where lease_token is null`;
  } else {
    await sql`create index bench_floor_queue_due_idx on ${queue} (next_attempt_at, id) where status = 'pending'`;
  }
  await sql`analyze ${source}`;
  return rows.count;
}

/** The shapes on copies of the product's tables. */
function productShaped(shape: FloorShape): boolean {
  return shape === 'product' || shape === 'product-without-lists' || opensApart(shape);
}

/** The shapes whose open deliveries' state lives in a narrow table of its own. */
function opensApart(shape: FloorShape): boolean {
  return shape === 'split' || writtenAtEnd(shape);
}

/** The shapes that write the delivery's row only when it ends (floor-end-written.ts). */
function writtenAtEnd(shape: FloorShape): shape is 'end-written' | 'end-written-limited' {
  return shape === 'end-written' || shape === 'end-written-limited';
}

const END_WRITTEN: EndWrittenTables = { open: OPEN_TABLE, queue: FLOOR_TABLE, attempts: ATTEMPTS_TABLE, source: SOURCE_TABLE };

/** What the run left undelivered (0 when every delivery was recorded as delivered and, in `end-written-limited`, its counts settled). */
export async function undelivered(sql: Sql, shape: FloorShape, expected: number): Promise<number> {
  const done = productShaped(shape) ? 'succeeded' : 'delivered';
  const [row] = await sql<{ n: number }[]>`select count(*) filter (where status = ${done})::int as n from ${sql(FLOOR_TABLE)}`;
  if (!opensApart(shape)) return expected - row!.n;
  // A delivered row must also have left the open deliveries.
  const [open] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(OPEN_TABLE)}`;
  // The limits' counts must also have come back to zero.
  const unsettled = shape === 'end-written-limited' ? await unsettledEndpoints(sql) : 0;
  return expected - row!.n + open!.n + unsettled;
}

/** The fan-out's insert of `source` rows first..last (1-based, inclusive) as pending deliveries. */
export async function fanOut(sql: Sql, shape: FloorShape, first: number, last: number): Promise<void> {
  const queue = sql(FLOOR_TABLE);
  const source = sql(SOURCE_TABLE);
  if (shape === 'bare') throw new Error('the bare floor writes its rows before the clock starts');
  if (shape === 'writes') {
    await sql`insert into ${queue} (message_id, endpoint_id) select message_id, endpoint_id from ${source} where seq between ${first} and ${last}`;
  } else if (writtenAtEnd(shape)) {
    await fanOutEndWritten(sql, END_WRITTEN, shape === 'end-written-limited', first, last);
  } else if (shape === 'split') {
    await sql`
      with made as (
        insert into ${queue}
          (message_id, endpoint_id, workspace_id, event_type, status, max_attempts, next_attempt_at, created_at, updated_at)
        select message_id, endpoint_id, workspace_id, event_type, 'pending', 8, now(), now(), now()
          from ${source} where seq between ${first} and ${last}
        on conflict (message_id, endpoint_id) do nothing
        returning id, message_id, endpoint_id
      )
      insert into ${sql(OPEN_TABLE)} (delivery_id, message_id, endpoint_id) select id, message_id, endpoint_id from made`;
  } else {
    await sql`
      insert into ${queue}
        (message_id, endpoint_id, workspace_id, event_type, status, max_attempts, next_attempt_at, created_at, updated_at)
      select message_id, endpoint_id, workspace_id, event_type, 'pending', 8, now(), now(), now()
        from ${source} where seq between ${first} and ${last}
      on conflict (message_id, endpoint_id) do nothing`;
  }
}

/**
 * Takes up to `limit` due deliveries, the oldest first, skipping rows another claim holds
 * (`concurrency`: the calling queue's slots, which set an endpoint's share in the limited shape).
 */
export async function claimFloor(sql: Sql, shape: FloorShape, limit: number, concurrency: number): Promise<ClaimedRow[]> {
  const queue = sql(FLOOR_TABLE);
  const due = sql`
    select id from ${queue}
     where status = 'pending' and next_attempt_at <= now()
     order by next_attempt_at, id
       for update skip locked
     limit ${limit}`;
  if (shape === 'bare') {
    return sql<ClaimedRow[]>`
      update ${queue} set status = 'sending', attempts = attempts + 1, updated_at = now()
       where id in (${due})
      returning id, endpoint_id, url, message_id, body, null as lease_token`;
  }
  if (shape === 'end-written-limited') return claimLimited(sql, END_WRITTEN, limit, concurrency);
  const open = sql(OPEN_TABLE);
  const claimed =
    opensApart(shape)
      ? sql`
          update ${open} set lease_token = gen_random_uuid(), lease_until = now() + interval '5 minutes'
           where delivery_id in (
             select delivery_id from ${open}
              where lease_token is null and next_attempt_at <= now()
              order by next_attempt_at, delivery_id
                for update skip locked
              limit ${limit})
          returning delivery_id as id, message_id, endpoint_id, lease_token`
      : shape === 'writes'
      ? sql`
          update ${queue} set status = 'sending', updated_at = now()
           where id in (${due})
          returning id, message_id, endpoint_id, null::uuid as lease_token`
      : sql`
          update ${queue} set status = 'sending', lease_token = gen_random_uuid(), lease_until = now() + interval '5 minutes',
                 lease_worker = 1, updated_at = now()
           where id in (${due})
          returning id, message_id, endpoint_id, lease_token`;
  return sql<ClaimedRow[]>`
    with claimed as (${claimed})
    select c.id, c.endpoint_id, e.url, c.message_id, m.body, c.lease_token
      from claimed c
      join webhook_messages m on m.id = c.message_id
      join webhook_endpoints e on e.id = c.endpoint_id`;
}

/** Records a batch of outcomes: one statement (and transaction) per kind for `bare`, one in all for the others. */
export async function recordFloor(sql: Sql, shape: FloorShape, outcomes: Outcome[]): Promise<number> {
  const queue = sql(FLOOR_TABLE);
  if (shape === 'bare') {
    const delivered = outcomes.filter((o) => o.ok).map((o) => o.row.id);
    const failed = outcomes.filter((o) => !o.ok).map((o) => o.row.id);
    let statements = 0;
    if (delivered.length > 0) {
      statements++;
      await sql`update ${queue} set status = 'delivered', updated_at = now() where id = any (${delivered}::bigint[])`;
    }
    if (failed.length > 0) {
      statements++;
      await sql`update ${queue} set status = 'pending', next_attempt_at = now() + interval '1 minute', updated_at = now() where id = any (${failed}::bigint[])`;
    }
    return statements;
  }
  const attempts = sql(ATTEMPTS_TABLE);
  const ids = outcomes.map((o) => o.row.id);
  // As text: postgres.js sends an array of booleans as one boolean.
  const oks = outcomes.map((o) => String(o.ok));
  const codes = outcomes.map((o) => o.statusCode);
  const times = outcomes.map((o) => o.attemptedAt.toISOString());
  const durations = outcomes.map((o) => o.durationMs);
  if (shape === 'writes') {
    await sql`
      with input as (
        select * from unnest(${ids}::bigint[], ${oks}::text[]::boolean[], ${codes}::int[], ${times}::timestamptz[], ${durations}::int[])
                   as i(id, ok, status_code, attempted_at, duration_ms)
      ),
      completed as (
        update ${queue} q
           set status = case when i.ok then 'delivered' else 'pending' end, attempts = q.attempts + 1,
               next_attempt_at = case when i.ok then q.next_attempt_at else now() + interval '1 minute' end, updated_at = now()
          from input i
         where q.id = i.id and q.status = 'sending'
      )
      insert into ${attempts} (delivery_id, attempted_at, succeeded, status_code, duration_ms)
      select id, attempted_at, ok, status_code, duration_ms from input`;
    return 1;
  }
  const tokens = outcomes.map((o) => o.row.lease_token);
  const endpoints = outcomes.map((o) => o.row.endpoint_id);
  const input = sql`
    select * from unnest(${ids}::uuid[], ${tokens}::uuid[], ${endpoints}::uuid[], ${oks}::text[]::boolean[], ${codes}::int[],
                         ${times}::timestamptz[], ${durations}::int[])
               as i(id, lease_token, endpoint_id, ok, status_code, attempted_at, duration_ms)`;
  if (writtenAtEnd(shape)) {
    await recordEndWritten(sql, END_WRITTEN, shape === 'end-written-limited', input);
    return 1;
  }
  if (shape === 'split') {
    // The lease is checked and ended on the narrow row; the delivery's row is written only here.
    const open = sql(OPEN_TABLE);
    await sql`
      with input as (${input}),
      ended as (
        delete from ${open} o using input i
         where o.delivery_id = i.id and o.lease_token = i.lease_token and i.ok
        returning o.delivery_id
      ),
      released as (
        update ${open} o set lease_token = null, lease_until = null, next_attempt_at = now() + interval '1 minute'
          from input i
         where o.delivery_id = i.id and o.lease_token = i.lease_token and not i.ok
        returning o.delivery_id
      ),
      completed as (
        update ${queue} q
           set status = case when i.ok then 'succeeded' else 'pending' end, attempt_count = q.attempt_count + 1,
               next_attempt_at = case when i.ok then q.next_attempt_at else now() + interval '1 minute' end,
               finished_at = case when i.ok then now() else null end, updated_at = now()
          from input i
         where q.id = i.id and q.id in (select delivery_id from ended union all select delivery_id from released)
      )
      insert into ${attempts} (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
      select i.id, i.endpoint_id, 1, i.attempted_at, i.ok, i.status_code, i.duration_ms from input i`;
    return 1;
  }
  await sql`
    with input as (${input}),
    completed as (
      update ${queue} q
         set status = case when i.ok then 'succeeded' else 'pending' end, attempt_count = q.attempt_count + 1,
             lease_token = null, lease_until = null, lease_worker = null,
             next_attempt_at = case when i.ok then q.next_attempt_at else now() + interval '1 minute' end,
             finished_at = case when i.ok then now() else null end, updated_at = now()
        from input i
       where q.id = i.id and q.status = 'sending' and q.lease_token = i.lease_token
    )
    insert into ${attempts} (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
    select i.id, i.endpoint_id, 1, i.attempted_at, i.ok, i.status_code, i.duration_ms from input i`;
  return 1;
}
