-- The open deliveries move into a narrow table of their own, and the delivery log keeps only
-- finished ones, each written once, when it ends (docs/architecture.md "Data model").
--
-- Why: a delivery row that carries the console's list indexes (13 in all) makes every claim and
-- outcome keep those indexes up to date for rows nobody lists yet, and that is most of a worker's
-- PostgreSQL time. With the open deliveries apart and the log row written once, at the end, a
-- delivery costs the worker's PostgreSQL about half the time.
--
-- - webhook_queue: pending and sending deliveries with their schedule and lease. Claimed, leased
--   and rescheduled there; a delivery keeps its id for life.
-- - webhook_delivery_log: succeeded, failed and cancelled deliveries (this is the former
--   webhook_deliveries table, renamed, without its open rows and lease columns). A resend moves
--   the row back into the queue with the same id, message and webhook-id.
-- - webhook_deliveries: a view, the union of both with the former table's columns, for every read
--   that does not care where a delivery lives. CHECK constraints on the status of each side let
--   the planner skip the side a status filter rules out.
--
-- Old workers cannot run against this shape (their statements fail on the view), and an attempt
-- still in flight when the tables change would lose its outcome and be sent again. So the
-- migration refuses to run while any worker holds its liveness lock (src/webhooks/engine/
-- liveness.ts): stop every `offerdesk serve` and `offerdesk worker` first (docs/operations.md
-- "Upgrades").

do $$
begin
  if exists (
    select 1 from pg_locks
     where locktype = 'advisory' and granted and objsubid = 2
       and classid::bigint = 268358492 -- WORKER_LOCK_CLASS, 0x0ffed35c
       and database = (select oid from pg_database where datname = current_database())
  ) then
    raise exception 'offerdesk workers are running on this database'
      using hint = 'stop every offerdesk serve and offerdesk worker process, run offerdesk migrate, then start them again (README "Upgrading")';
  end if;
end
$$;

lock table webhook_deliveries in access exclusive mode;

create table webhook_queue (
  id uuid constraint webhook_queue_pkey primary key default gen_random_uuid(),
  message_id uuid not null constraint webhook_queue_message_fkey references webhook_messages (id) on delete cascade,
  endpoint_id uuid not null constraint webhook_queue_endpoint_fkey references webhook_endpoints (id) on delete cascade,
  workspace_id uuid not null constraint webhook_queue_workspace_fkey references workspaces (id) on delete cascade,
  event_type text not null constraint webhook_queue_event_type_len check (length(event_type) between 1 and 64),
  is_test boolean not null default false,
  -- Open only: the view webhook_deliveries relies on this check to leave the queue out of a
  -- finished-status read.
  status text not null constraint webhook_queue_status_check check (status in ('pending', 'sending')),
  attempt_count integer not null default 0 constraint webhook_queue_attempt_count_min check (attempt_count >= 0),
  max_attempts integer not null constraint webhook_queue_max_attempts_min check (max_attempts >= 1),
  -- Due time while pending; kept while sending (orders lease-expired rows first).
  next_attempt_at timestamptz(3) not null,
  lease_token uuid,
  lease_until timestamptz(3),
  lease_worker integer,
  resend_count integer not null default 0 constraint webhook_queue_resend_count_range check (resend_count between 0 and 5),
  created_at timestamptz(3) not null,
  updated_at timestamptz(3) not null,
  constraint webhook_queue_message_endpoint_key unique (message_id, endpoint_id),
  constraint webhook_queue_lease_shape check ((status = 'sending') = (lease_token is not null and lease_until is not null))
);

-- Every open delivery keeps its id, schedule, lease and message (the webhook-id).
insert into webhook_queue
  (id, message_id, endpoint_id, workspace_id, event_type, is_test, status, attempt_count, max_attempts, next_attempt_at,
   lease_token, lease_until, lease_worker, resend_count, created_at, updated_at)
select id, message_id, endpoint_id, workspace_id, event_type, is_test, status, attempt_count, max_attempts,
       coalesce(next_attempt_at, updated_at), lease_token, lease_until, lease_worker, resend_count, created_at, updated_at
  from webhook_deliveries
 where status in ('pending', 'sending');

-- The indexes of the claim and the limits, as on the former table, now on open rows only.
-- One endpoint's open deliveries in the claim's order; also its 1,000-open count.
create index webhook_queue_endpoint_due_idx on webhook_queue (endpoint_id, next_attempt_at, id);
-- Workspaces with open deliveries (the claim's loose scan) and with due ones (its probe).
create index webhook_queue_workspace_due_idx on webhook_queue (workspace_id, next_attempt_at);
-- Attempts in flight: the per-endpoint share and the takeover of passed leases (migration 0004).
create index webhook_queue_sending_idx on webhook_queue (endpoint_id, lease_until) where status = 'sending';
-- Never-attempted events per workspace: the 1,000 waiting events (migration 0004).
create index webhook_queue_waiting_idx on webhook_queue (workspace_id, message_id) where attempt_count = 0 and not is_test;

-- An attempt belongs to a delivery that lives in the queue and then in the log: no foreign key
-- can follow it, and retention removes attempts itself.
alter table webhook_attempts drop constraint webhook_attempts_delivery_fkey;

delete from webhook_deliveries where status in ('pending', 'sending');

drop index webhook_deliveries_open_idx;
drop index webhook_deliveries_workspace_due_idx;
drop index webhook_deliveries_sending_idx;
drop index webhook_deliveries_waiting_idx;

-- The delivery log's page (the view below) reads a workspace's open deliveries newest first
-- beside the finished ones. A workspace holds at most 5 x 1,000 of them (docs/webhook-delivery.md
-- "Limits"), so this index, with the other filters applied to its rows, serves every filter of
-- the page but the event type, which has its own: a type no open delivery has would otherwise
-- be planned as a scan and a sort of the queue. (webhook_deliveries_open_idx is the former
-- name of the open rows' index.)
create index webhook_deliveries_open_idx on webhook_queue (workspace_id, created_at desc, id desc);
create index webhook_queue_ws_type_log_idx on webhook_queue (workspace_id, event_type, created_at desc, id desc);

alter table webhook_deliveries
  drop constraint webhook_deliveries_pending_shape,
  drop constraint webhook_deliveries_lease_shape,
  drop constraint webhook_deliveries_finished_shape,
  drop constraint webhook_deliveries_status_check,
  drop column lease_token,
  drop column lease_until,
  drop column lease_worker,
  alter column finished_at set not null,
  add constraint webhook_delivery_log_status_check check (status in ('succeeded', 'failed', 'cancelled'));

alter table webhook_deliveries rename to webhook_delivery_log;
alter table webhook_delivery_log rename constraint webhook_deliveries_pkey to webhook_delivery_log_pkey;
alter table webhook_delivery_log rename constraint webhook_deliveries_message_endpoint_key to webhook_delivery_log_message_endpoint_key;
alter table webhook_delivery_log rename constraint webhook_deliveries_message_fkey to webhook_delivery_log_message_fkey;
alter table webhook_delivery_log rename constraint webhook_deliveries_endpoint_fkey to webhook_delivery_log_endpoint_fkey;
alter table webhook_delivery_log rename constraint webhook_deliveries_workspace_fkey to webhook_delivery_log_workspace_fkey;
alter index webhook_deliveries_retention_idx rename to webhook_delivery_log_retention_idx;

-- Every delivery as one row with the former table's columns (lease columns null once finished,
-- failure_reason and finished_at null while open).
create view webhook_deliveries as
  select q.id, q.message_id, q.endpoint_id, q.workspace_id, q.is_test, q.status, q.attempt_count, q.max_attempts,
         q.next_attempt_at, q.lease_token, q.lease_until, q.resend_count, null::text as failure_reason, q.created_at,
         q.updated_at, null::timestamptz(3) as finished_at, q.event_type, q.lease_worker
    from webhook_queue q
  union all
  select l.id, l.message_id, l.endpoint_id, l.workspace_id, l.is_test, l.status, l.attempt_count, l.max_attempts,
         l.next_attempt_at, null::uuid, null::timestamptz(3), l.resend_count, l.failure_reason, l.created_at,
         l.updated_at, l.finished_at, l.event_type, null::integer
    from webhook_delivery_log l;
