-- Retention's message step (deleteUnusedMessages, src/jobs/sql/deleteExpiredLog.ts) finds the
-- log rows that still refer to an old message without probing every daily partition per message.
--
-- A delivery's created_at is its message's (src/webhooks/sql/insertDeliveries.ts writes the
-- message's), and every move between the queue and the log keeps it. So a log row that refers to
-- a message made on UTC day D was created on day D and is either
-- - one that ended on day D too: it lives in day D's partition (or the default or legacy one),
--   found by an index probe of the partitions covering day D only; or
-- - one that ended on a later day (retries across midnight, a resend days later: openapi.yaml
--   "Webhook delivery and retries"): few, listed here by their created_at, so a batch of messages
--   finds all of its own with one range read of this index in each partition.
-- Most rows end on the day they began and are not in this index, so a log write costs no more
-- than the predicate's check. It carries message_id, which is all retention reads of it.
--
-- Made on the parent alone, then on each partition under the name the partitions' other indexes
-- follow (<partition>_day_crossing_idx, as webhook_log_partition_indexes of 0020 names the copy
-- on the days made later) and attached: a plan names the partition's index it reads. Building it
-- reads each partition once and holds off the log's writes meanwhile (about 1.2 s for a log of
-- 2,000,000 rows).
create index webhook_deliveries_day_crossing_idx on only webhook_delivery_log (created_at) include (message_id)
  where (created_at at time zone 'UTC')::date <> (finished_at at time zone 'UTC')::date;

do $$
declare
  part text;
begin
  for part in select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
               where i.inhparent = 'webhook_delivery_log'::regclass
  loop
    execute format('create index %I on %I (created_at) include (message_id)
                      where (created_at at time zone ''UTC'')::date <> (finished_at at time zone ''UTC'')::date',
                   part || '_day_crossing_idx', part);
    execute format('alter index webhook_deliveries_day_crossing_idx attach partition %I', part || '_day_crossing_idx');
  end loop;
end
$$;
