-- The prepared messages (webhook_messages) partitioned by UTC day of created_at, as the delivery
-- log is (migration 0020), so that retention (docs/delivery-log.md "Retention": 30 days) drops a whole day
-- of messages once nothing refers to it, and its cost does not grow with the rows
-- (docs/delivery-log.md "Retention"). Deleting messages one by one means looking at every old
-- message and probing the queue and the log for it (700 ms a day for a 2,000,000-row log, ten
-- times that at 20,000,000).
--
-- - One partition per UTC day, webhook_messages_pYYYYMMDD, made ahead with the log's days by the
--   periodic job `webhook-log-partitions` (src/jobs/jobs.ts); a DEFAULT partition takes the rows
--   of a day without one, so no insert ever fails, and a day made later takes its rows out of it.
-- - A message's id (the webhook-id) is unique per partition, as the log's delivery id is: a
--   partitioned table's unique keys must contain the partition key. It is unique by construction
--   across them: an event's message id is its outbox row's id, written once by the one fan-out
--   transaction that deletes the row; a ping's is a new random UUID.
-- - Every delivery's created_at is its message's (src/webhooks/sql/insertDeliveries.ts writes the
--   message's, and the fan-out writes the same `now` for both), so a reader that holds a
--   delivery finds its message by (id, created_at) in one partition, and retention finds every
--   row that refers to a day's messages by the rows' created_at.
-- - The queue's foreign key to the message goes (a key cannot point into a partitioned table by id
--   alone, and dropping a referenced partition would need a detach that scans the queue under the
--   parent's lock). "No open delivery without its message" is kept by retention instead: it drops
--   a day only under an exclusive lock on webhook_messages, after finding no queue row and no kept
--   log row created on that day (src/jobs/sql/dropUnusedMessageDays.ts). A new index on the
--   queue's created_at makes that check one index probe.
-- - The rows already there become one legacy partition covering everything before the next UTC
--   day (later if a message is newer), attached without rebuilding an index: the parent's indexes
--   are those the table already has, and a CHECK proves the range so ATTACH reads nothing more.
--   Its rows go by retention's batch step (deleteUnusedMessages) as they age; the partition
--   itself is dropped once its whole range is past the cutoff and nothing refers to it.
--
-- Workers need not be stopped: nothing is lost or sent twice. But the migration holds webhook_messages
-- and webhook_queue exclusively while it checks the old rows' range (claims and fan-outs wait),
-- taking them while a claim (queue, then message) or a fan-out (message, then queue) is under way
-- can end in a deadlock error that rolls one side back (a fan-out is retried; the migration is
-- run again), and an old process's message insert (`on conflict (id)`) fails against the new
-- table: its fan-out rolls back and the events stay in the outbox for a new process, its endpoint
-- test returns an error. Stopping the workers first (docs/operations.md "Upgrades") avoids all
-- three.

-- 1. A message day's partition is made as a day of the log is (webhook_log_partition_ensure,
-- migration 0020: made apart, its rows taken out of the default partition, then attached). The two
-- functions that give a partition its keys and its parent's indexes learn webhook_messages: its
-- id, unique per partition (see above), and index names without the table's prefix.
create or replace function webhook_log_partition_indexes(parent text, part text) returns void
  language plpgsql as $$
declare
  ix record;
begin
  for ix in select c.relname as name, pg_get_indexdef(c.oid) as def
              from pg_index i join pg_class c on c.oid = i.indexrelid
             where i.indrelid = parent::regclass
  loop
    execute regexp_replace(ix.def, '^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ USING ',
                           'CREATE \1INDEX ' || quote_ident(part || '_' || regexp_replace(ix.name, '^webhook_(deliveries|attempts|messages)_', ''))
                           || ' ON ' || quote_ident(part) || ' USING ');
  end loop;
end
$$;

create or replace function webhook_log_partition_keys(parent text, part text) returns void
  language plpgsql as $$
begin
  if parent = 'webhook_delivery_log' then
    execute format('create unique index %I on %I (id)', part || '_id_key', part);
    execute format('create unique index %I on %I (message_id, endpoint_id)', part || '_message_endpoint_key', part);
  elsif parent = 'webhook_messages' then
    execute format('create unique index %I on %I (id)', part || '_id_key', part);
  end if;
end
$$;

-- The message days from first_day to last_day that are missing; returns how many it made.
-- Serialised with the log's (the same advisory lock), so the job of several workers, the
-- migration and the bench's seeds may call it at once.
create function webhook_message_partitions_ensure(first_day date, last_day date) returns integer
  language plpgsql as $$
declare
  day date;
  made integer := 0;
begin
  perform pg_advisory_xact_lock(hashtext('webhook_log_partitions_ensure'));
  for day in select d::date from generate_series(first_day::timestamp, last_day::timestamp, interval '1 day') as d loop
    made := made + webhook_log_partition_ensure('webhook_messages', 'created_at', day);
  end loop;
  return made;
end
$$;

-- 2. The table.
lock table webhook_messages, webhook_queue in access exclusive mode;
alter table webhook_queue drop constraint webhook_queue_message_fkey;
-- Retention's check for a day's open deliveries (see above).
create index webhook_queue_created_idx on webhook_queue (created_at);

alter table webhook_messages rename to webhook_messages_legacy;
alter table webhook_messages_legacy rename constraint webhook_messages_pkey to webhook_messages_legacy_id_key;
alter index webhook_messages_offer_idx rename to webhook_messages_legacy_offer_idx;
alter index webhook_messages_created_idx rename to webhook_messages_legacy_created_idx;

-- Same columns in the same order, the same CHECKs by name (ATTACH requires both).
create table webhook_messages (like webhook_messages_legacy including defaults including constraints)
  partition by range (created_at);
alter table webhook_messages add constraint webhook_messages_workspace_fkey
  foreign key (workspace_id) references workspaces (id) on delete cascade;
-- The console's search by offer (migration 0011), on every partition. The index on created_at
-- stays on the partitions whose rows retention deletes one by one in that order (the default and
-- the legacy one): a day's needs none, and a lookup by (id, created_at) then reads its id key.
create index webhook_messages_offer_idx on webhook_messages (workspace_id, offer_id) where offer_id is not null;

create table webhook_messages_default (like webhook_messages including defaults including constraints);
select webhook_log_partition_keys('webhook_messages', 'webhook_messages_default'),
       webhook_log_partition_indexes('webhook_messages', 'webhook_messages_default');
create index webhook_messages_default_created_idx on webhook_messages_default (created_at);
alter table webhook_messages attach partition webhook_messages_default default;

-- 3. The old rows as one partition, up to the start of the next UTC day (later if a row is newer,
-- as on a clock set ahead); an empty old table is dropped instead.
do $$
declare
  bound timestamptz;
begin
  if exists (select 1 from webhook_messages_legacy) then
    select date_trunc('day', greatest(now(), max(created_at)), 'UTC') + interval '24 hours' into bound
      from webhook_messages_legacy;
    execute format('alter table webhook_messages_legacy add constraint webhook_messages_legacy_range check (created_at < %L)', bound);
    execute format('alter table webhook_messages attach partition webhook_messages_legacy for values from (minvalue) to (%L)', bound);
  else
    drop table webhook_messages_legacy;
  end if;
end
$$;

-- 4. A database with messages goes on with the days after the legacy partition (those the log
-- has made ahead, and the next three), so that none of its rows waits in the default partition for
-- the periodic job. A new one gets its days from that job when its first worker starts.
select webhook_message_partitions_ensure(
         (select (upper_bound at time zone 'UTC')::date from webhook_log_partitions('webhook_messages') where lower_bound is null),
         greatest((now() at time zone 'UTC')::date + 3,
                  (select max((lower_bound at time zone 'UTC')::date) from webhook_log_partitions('webhook_delivery_log'))))
 where exists (select 1 from webhook_log_partitions('webhook_messages') where lower_bound is null);
