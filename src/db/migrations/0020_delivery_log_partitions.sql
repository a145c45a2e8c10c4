-- The delivery log and the attempts, partitioned by day (UTC), so that retention (docs/delivery-log.md
-- "Retention": 30 days) drops a whole day at a time instead of deleting rows one by one, and
-- its cost does not grow with the log (docs/delivery-log.md "Retention").
--
-- - webhook_delivery_log by finished_at (a row is written once, when its delivery ends),
--   webhook_attempts by attempted_at; one partition per UTC day, named <table>_pYYYYMMDD.
-- - A DEFAULT partition of each takes the rows of a day that has no partition (a clock far from
--   the days made ahead), so no write ever fails for want of one; retention deletes its old rows
--   row by row, and a day made later takes its rows out of it.
-- - The rows already there become one legacy partition of each, covering everything before the
--   next UTC day (or the day after the newest row), attached without rebuilding an index: the
--   parent's indexes are those the tables already have, and a CHECK proves the range so ATTACH
--   reads nothing. Retention drops it once that whole range is older than the cutoff.
-- - Unique keys cannot span partitions unless they contain the partition key, so the delivery id
--   and the (message, endpoint) pair are unique per partition (each row is in exactly one: a
--   delivery is written into the log once per ending, and a resend takes it out again); they
--   serve the lookups by id and the retention's "is this message still used" probe.
--
-- Writers need no change: rows go into the parents. Stopping workers is not required for this
-- one, but it holds an exclusive lock on both tables while it checks the old rows' range.

-- The partitions of a log table with their bounds (null lower bound: from the beginning), the
-- default one left out. Read by the functions below and by retention (src/jobs/sql/).
create function webhook_log_partitions(parent regclass)
  returns table (name text, lower_bound timestamptz, upper_bound timestamptz)
  language sql stable as $$
    select c.relname::text, b[1]::timestamptz, b[2]::timestamptz
      from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
     cross join lateral regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                     '^FOR VALUES FROM \((?:MINVALUE|''([^'']*)'')\) TO \((?:MAXVALUE|''([^'']*)'')\)$') as b
     where i.inhparent = parent and b is not null
  $$;

-- The parent's indexes on a partition not yet attached, each named after the partition and the
-- parent index (webhook_delivery_log_p20260115_ws_log_idx for webhook_deliveries_ws_log_idx), so
-- a plan names the index it reads; ATTACH then adopts them instead of making its own.
create function webhook_log_partition_indexes(parent text, part text) returns void
  language plpgsql as $$
declare
  ix record;
begin
  for ix in select c.relname as name, pg_get_indexdef(c.oid) as def
              from pg_index i join pg_class c on c.oid = i.indexrelid
             where i.indrelid = parent::regclass
  loop
    execute regexp_replace(ix.def, '^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ USING ',
                           'CREATE \1INDEX ' || quote_ident(part || '_' || regexp_replace(ix.name, '^webhook_(deliveries|attempts)_', ''))
                           || ' ON ' || quote_ident(part) || ' USING ');
  end loop;
end
$$;

-- What is unique per partition only (see above): the delivery log's id and (message, endpoint).
create function webhook_log_partition_keys(parent text, part text) returns void
  language plpgsql as $$
begin
  if parent = 'webhook_delivery_log' then
    execute format('create unique index %I on %I (id)', part || '_id_key', part);
    execute format('create unique index %I on %I (message_id, endpoint_id)', part || '_message_endpoint_key', part);
  end if;
end
$$;

-- One day's partition of one table, made apart and attached (ATTACH takes a lighter lock on the
-- parent than CREATE TABLE ... PARTITION OF, so reads and writes of the log go on), with that
-- day's rows taken out of the default partition first. Nothing when the day is covered already.
create function webhook_log_partition_ensure(parent text, key text, day date) returns integer
  language plpgsql as $$
declare
  part text := parent || '_p' || to_char(day, 'YYYYMMDD');
  fallback text := parent || '_default';
  lower_at timestamptz := day::timestamp at time zone 'UTC';
  upper_at timestamptz := (day + 1)::timestamp at time zone 'UTC';
begin
  if exists (select 1 from webhook_log_partitions(parent::regclass) p
              where coalesce(p.lower_bound < upper_at, true) and p.upper_bound > lower_at) then
    return 0;
  end if;
  execute format('create table %I (like %I including defaults including constraints)', part, parent);
  perform webhook_log_partition_keys(parent, part);
  perform webhook_log_partition_indexes(parent, part);
  if to_regclass(fallback) is not null then
    execute format('with moved as (delete from %I where %I >= $1 and %I < $2 returning *) insert into %I select * from moved',
                   fallback, key, key, part)
      using lower_at, upper_at;
  end if;
  execute format('alter table %I attach partition %I for values from (%L) to (%L)', parent, part, lower_at, upper_at);
  return 1;
end
$$;

-- The daily partitions of both tables from first_day to last_day (UTC days) that are missing;
-- returns how many it made. Idempotent, and serialised, so the job of several workers, the
-- migration and the bench's seeds may call it at once. Used by the periodic job
-- `webhook-log-partitions` (src/jobs/jobs.ts), which keeps the next days made ahead.
create function webhook_log_partitions_ensure(first_day date, last_day date) returns integer
  language plpgsql as $$
declare
  day date;
  made integer := 0;
begin
  perform pg_advisory_xact_lock(hashtext('webhook_log_partitions_ensure'));
  for day in select d::date from generate_series(first_day::timestamp, last_day::timestamp, interval '1 day') as d loop
    made := made + webhook_log_partition_ensure('webhook_delivery_log', 'finished_at', day)
                 + webhook_log_partition_ensure('webhook_attempts', 'attempted_at', day);
  end loop;
  return made;
end
$$;

-- 1. The delivery log.
lock table webhook_delivery_log in access exclusive mode;
alter table webhook_delivery_log rename to webhook_delivery_log_legacy;
alter table webhook_delivery_log_legacy rename constraint webhook_deliveries_attempt_count_min to webhook_delivery_log_attempt_count_min;
alter table webhook_delivery_log_legacy rename constraint webhook_deliveries_max_attempts_min to webhook_delivery_log_max_attempts_min;
alter table webhook_delivery_log_legacy rename constraint webhook_deliveries_resend_count_range to webhook_delivery_log_resend_count_range;
alter table webhook_delivery_log_legacy rename constraint webhook_deliveries_failure_reason_len to webhook_delivery_log_failure_reason_len;
alter table webhook_delivery_log_legacy rename constraint webhook_deliveries_event_type_len to webhook_delivery_log_event_type_len;
alter table webhook_delivery_log_legacy rename constraint webhook_delivery_log_pkey to webhook_delivery_log_legacy_id_key;
alter table webhook_delivery_log_legacy rename constraint webhook_delivery_log_message_endpoint_key to webhook_delivery_log_legacy_message_endpoint_key;
-- Retention drops days rather than deleting rows by their last change, and deletes only messages
-- no delivery refers to, so neither this index nor the message's foreign key serves it (see the
-- parent below).
drop index webhook_delivery_log_retention_idx;
alter table webhook_delivery_log_legacy drop constraint webhook_delivery_log_message_fkey;
alter index webhook_deliveries_ws_log_idx rename to webhook_delivery_log_legacy_ws_log_idx;
alter index webhook_deliveries_ws_status_log_idx rename to webhook_delivery_log_legacy_ws_status_log_idx;
alter index webhook_deliveries_ws_type_log_idx rename to webhook_delivery_log_legacy_ws_type_log_idx;
alter index webhook_deliveries_log_idx rename to webhook_delivery_log_legacy_log_idx;
alter index webhook_deliveries_endpoint_status_log_idx rename to webhook_delivery_log_legacy_endpoint_status_log_idx;
alter index webhook_deliveries_endpoint_type_log_idx rename to webhook_delivery_log_legacy_endpoint_type_log_idx;

create table webhook_delivery_log (
  id uuid not null default gen_random_uuid(),
  -- No foreign key to webhook_messages: retention deletes only messages no queue or log row
  -- refers to, and a key on a partitioned table puts a check on every message delete per partition.
  message_id uuid not null,
  endpoint_id uuid not null constraint webhook_delivery_log_endpoint_fkey references webhook_endpoints (id) on delete cascade,
  workspace_id uuid not null constraint webhook_delivery_log_workspace_fkey references workspaces (id) on delete cascade,
  is_test boolean not null default false,
  -- Finished only: the view webhook_deliveries relies on this check to leave the log out of an
  -- open-status read.
  status text not null constraint webhook_delivery_log_status_check check (status in ('succeeded', 'failed', 'cancelled')),
  attempt_count integer not null default 0 constraint webhook_delivery_log_attempt_count_min check (attempt_count >= 0),
  max_attempts integer not null constraint webhook_delivery_log_max_attempts_min check (max_attempts >= 1),
  next_attempt_at timestamptz(3),
  resend_count integer not null default 0 constraint webhook_delivery_log_resend_count_range check (resend_count between 0 and 5),
  failure_reason text constraint webhook_delivery_log_failure_reason_len check (length(failure_reason) <= 64),
  created_at timestamptz(3) not null,
  updated_at timestamptz(3) not null,
  finished_at timestamptz(3) not null,
  event_type text not null constraint webhook_delivery_log_event_type_len check (length(event_type) between 1 and 64)
) partition by range (finished_at);
-- The console's list indexes (migration 0011), by their former names, on every partition.
create index webhook_deliveries_ws_log_idx on webhook_delivery_log (workspace_id, created_at desc, id desc);
create index webhook_deliveries_ws_status_log_idx on webhook_delivery_log (workspace_id, status, created_at desc, id desc);
create index webhook_deliveries_ws_type_log_idx on webhook_delivery_log (workspace_id, event_type, created_at desc, id desc);
create index webhook_deliveries_log_idx on webhook_delivery_log (endpoint_id, created_at desc, id desc);
create index webhook_deliveries_endpoint_status_log_idx on webhook_delivery_log (endpoint_id, status, created_at desc, id desc);
create index webhook_deliveries_endpoint_type_log_idx on webhook_delivery_log (endpoint_id, event_type, created_at desc, id desc);

create table webhook_delivery_log_default (like webhook_delivery_log including defaults including constraints);
select webhook_log_partition_keys('webhook_delivery_log', 'webhook_delivery_log_default');
select webhook_log_partition_indexes('webhook_delivery_log', 'webhook_delivery_log_default');
alter table webhook_delivery_log attach partition webhook_delivery_log_default default;

-- 2. The attempts. The identity column becomes a plain sequence: PostgreSQL 15 has no identity
-- on a partitioned table. Ids go on from the highest one.
lock table webhook_attempts in access exclusive mode;
alter table webhook_attempts rename to webhook_attempts_legacy;
alter table webhook_attempts_legacy rename constraint webhook_attempts_pkey to webhook_attempts_legacy_id_key;
alter index webhook_attempts_delivery_idx rename to webhook_attempts_legacy_delivery_idx;
alter index webhook_attempts_endpoint_time_idx rename to webhook_attempts_legacy_endpoint_time_idx;
alter table webhook_attempts_legacy alter column id drop identity;

create table webhook_attempts (
  id bigint not null,
  delivery_id uuid not null,
  attempt integer not null constraint webhook_attempts_attempt_min check (attempt >= 1),
  attempted_at timestamptz(3) not null,
  succeeded boolean not null,
  status_code integer constraint webhook_attempts_status_code_range check (status_code between 100 and 999),
  error text constraint webhook_attempts_error_len check (length(error) <= 1000),
  duration_ms integer not null constraint webhook_attempts_duration_min check (duration_ms >= 0),
  response_prefix text constraint webhook_attempts_response_prefix_len check (length(response_prefix) <= 2048),
  endpoint_id uuid not null constraint webhook_attempts_endpoint_fkey references webhook_endpoints (id) on delete cascade,
  signature text constraint webhook_attempts_signature_len check (length(signature) <= 1000)
) partition by range (attempted_at);
create sequence webhook_attempts_id_seq owned by webhook_attempts.id;
select setval('webhook_attempts_id_seq', coalesce((select max(id) from webhook_attempts_legacy), 0) + 1, false);
alter table webhook_attempts alter column id set default nextval('webhook_attempts_id_seq');
-- A delivery's attempts in order (the delivery page), and an endpoint's recent ones (statistics,
-- health).
create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, id);
create index webhook_attempts_endpoint_time_idx on webhook_attempts (endpoint_id, attempted_at) include (succeeded);

create table webhook_attempts_default (like webhook_attempts including defaults including constraints);
select webhook_log_partition_indexes('webhook_attempts', 'webhook_attempts_default');
alter table webhook_attempts attach partition webhook_attempts_default default;

-- The view of migration 0019 reads the new parent (a view binds to a table, not to its name),
-- before the old table may be dropped below.
create or replace view webhook_deliveries as
  select q.id, q.message_id, q.endpoint_id, q.workspace_id, q.is_test, q.status, q.attempt_count, q.max_attempts,
         q.next_attempt_at, q.lease_token, q.lease_until, q.resend_count, null::text as failure_reason, q.created_at,
         q.updated_at, null::timestamptz(3) as finished_at, q.event_type, q.lease_worker
    from webhook_queue q
  union all
  select l.id, l.message_id, l.endpoint_id, l.workspace_id, l.is_test, l.status, l.attempt_count, l.max_attempts,
         l.next_attempt_at, null::uuid, null::timestamptz(3), l.resend_count, l.failure_reason, l.created_at,
         l.updated_at, l.finished_at, l.event_type, null::integer
    from webhook_delivery_log l;

-- 3. The old rows as one partition of each, up to the start of the next UTC day (later if a row
-- is newer, as on a clock set ahead). An empty old table is dropped instead, so a new database
-- starts with daily partitions only.
do $$
declare
  bound timestamptz;
begin
  if exists (select 1 from webhook_delivery_log_legacy) then
    select date_trunc('day', greatest(now(), max(finished_at)), 'UTC') + interval '24 hours' into bound
      from webhook_delivery_log_legacy;
    execute format('alter table webhook_delivery_log_legacy add constraint webhook_delivery_log_legacy_range check (finished_at < %L)', bound);
    execute format('alter table webhook_delivery_log attach partition webhook_delivery_log_legacy for values from (minvalue) to (%L)', bound);
  else
    drop table webhook_delivery_log_legacy;
  end if;
  if exists (select 1 from webhook_attempts_legacy) then
    select date_trunc('day', greatest(now(), max(attempted_at)), 'UTC') + interval '24 hours' into bound
      from webhook_attempts_legacy;
    execute format('alter table webhook_attempts_legacy add constraint webhook_attempts_legacy_range check (attempted_at < %L)', bound);
    execute format('alter table webhook_attempts attach partition webhook_attempts_legacy for values from (minvalue) to (%L)', bound);
  else
    drop table webhook_attempts_legacy;
  end if;
end
$$;

-- 4. A database with a log goes on with the days after the legacy partition, made here so that
-- none of its rows waits in the default partition for the periodic job (src/jobs/jobs.ts
-- `webhook-log-partitions`, which makes each day before it begins). A new one gets its days from
-- that job when its first worker starts.
select webhook_log_partitions_ensure((now() at time zone 'UTC')::date + 1, (now() at time zone 'UTC')::date + 3)
 where exists (select 1 from webhook_log_partitions('webhook_delivery_log') where lower_bound is null)
    or exists (select 1 from webhook_log_partitions('webhook_attempts') where lower_bound is null);
