-- A claim that writes no indexed column, and a queue with only the indexes the worker needs
-- (docs/scaling.md "The write path" and "What bounds the worker").
--
-- Why: every claim rewrote the queue row's status and lease, which the partial index of attempts
-- in flight (webhook_queue_sending_idx) reads, so no claim was a HOT update and each wrote an
-- entry into every one of the queue's nine indexes; three of those served only the console's
-- lists of open deliveries and retention. Together they were most of PostgreSQL's time and WAL per
-- delivery.
--
-- - The lease stays where it is, in the queue row's status, lease_token, lease_until and
--   lease_worker columns, which no index of the queue reads any more: the claim's update and the
--   lease's hand-back are HOT when the page has room, which the fillfactor below leaves.
-- - webhook_in_flight holds the attempts in flight (one row per `sending` delivery: endpoint,
--   workspace, due time, lease), kept by the triggers below from whatever writes the queue, so
--   the claim's stale leases and each endpoint's share of attempts in flight are read from a
--   table as small as the fleet's concurrency rather than from an index of the queue.
-- - The console's lists of open deliveries read the queue through webhook_queue_workspace_due_idx
--   and sort a workspace's open deliveries (at most 5 x 1,000, docs/delivery-log.md), and
--   retention's check for open deliveries of an old day reads the queue whole, once per day
--   dropped: webhook_deliveries_open_idx, webhook_queue_ws_type_log_idx and
--   webhook_queue_created_idx go.
--
-- Safe beside a worker of the release before (README "Upgrading"): it writes the same columns
-- with the same meaning, and the triggers keep webhook_in_flight whoever writes the queue. The
-- migration takes the queue exclusively for a moment (the index drops and the copy of the
-- attempts in flight), so the old worker's statements wait and then go on; nothing it holds is
-- lost or taken over before its lease passes.

lock table webhook_queue in access exclusive mode;

create table webhook_in_flight (
  delivery_id uuid constraint webhook_in_flight_pkey primary key,
  endpoint_id uuid not null,
  workspace_id uuid not null,
  -- The delivery's due time: a stale attempt is taken over in the claim's order (oldest first).
  next_attempt_at timestamptz(3) not null,
  lease_until timestamptz(3) not null,
  lease_worker integer
) with (
  -- Rows live for one attempt: vacuum often, whatever the table's size, so dead rows do not
  -- accumulate under the claim's scan of stale leases.
  autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000,
  autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 2000
);

-- Each endpoint's attempts in flight: its share (the claim, the waiting reasons).
create index webhook_in_flight_endpoint_idx on webhook_in_flight (endpoint_id);

-- One function for the insert and update triggers: a row written as `sending` is in flight with
-- its lease (a claim, a lease taken over), any other row is not (a retry's reschedule, a claim
-- given back). Rows are keyed by delivery: the queue row's lock orders writers of one delivery.
create function webhook_in_flight_track() returns trigger language plpgsql as $$
begin
  delete from webhook_in_flight f
   using changed_rows n
   where f.delivery_id = n.id and n.status <> 'sending';
  insert into webhook_in_flight (delivery_id, endpoint_id, workspace_id, next_attempt_at, lease_until, lease_worker)
  select n.id, n.endpoint_id, n.workspace_id, n.next_attempt_at, n.lease_until, n.lease_worker
    from changed_rows n
   where n.status = 'sending'
  on conflict (delivery_id) do update
     set lease_until = excluded.lease_until, lease_worker = excluded.lease_worker,
         next_attempt_at = excluded.next_attempt_at;
  return null;
end
$$;

create function webhook_in_flight_untrack() returns trigger language plpgsql as $$
begin
  delete from webhook_in_flight f
   using gone_rows o
   where f.delivery_id = o.id and o.status = 'sending';
  return null;
end
$$;

create trigger webhook_queue_in_flight_insert after insert on webhook_queue
  referencing new table as changed_rows for each statement execute function webhook_in_flight_track();
create trigger webhook_queue_in_flight_update after update on webhook_queue
  referencing new table as changed_rows for each statement execute function webhook_in_flight_track();
create trigger webhook_queue_in_flight_delete after delete on webhook_queue
  referencing old table as gone_rows for each statement execute function webhook_in_flight_untrack();

-- The attempts in flight now, leased by this release's workers or the one before.
insert into webhook_in_flight (delivery_id, endpoint_id, workspace_id, next_attempt_at, lease_until, lease_worker)
select id, endpoint_id, workspace_id, next_attempt_at, lease_until, lease_worker
  from webhook_queue
 where status = 'sending';

drop index webhook_queue_sending_idx;
drop index webhook_deliveries_open_idx;
drop index webhook_queue_ws_type_log_idx;
drop index webhook_queue_created_idx;

-- Room on each page for the claim's new row version (a HOT update stays on its page). Pages
-- written from now on keep it; the queue turns over within the deliveries' lifetime.
alter table webhook_queue set (fillfactor = 70);
