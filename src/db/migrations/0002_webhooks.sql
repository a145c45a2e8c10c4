-- Webhook engine: subscriber endpoints, prepared messages, one delivery per endpoint x message,
-- the attempts log, per-workspace fairness and start-rate state, and the worker's periodic jobs.
-- Rules cited are openapi.yaml "Webhook delivery and retries" and docs/webhook-delivery.md "Limits".

create table webhook_endpoints (
  id uuid constraint webhook_endpoints_pkey primary key default gen_random_uuid(),
  workspace_id uuid not null constraint webhook_endpoints_workspace_fkey references workspaces (id) on delete cascade,
  url text not null constraint webhook_endpoints_url_len check (length(url) between 9 and 2048),
  -- Subscribed webhook types (never 'ping', which cannot be subscribed to).
  event_types text[] not null constraint webhook_endpoints_event_types_check
    check (cardinality(event_types) between 1 and 32 and not ('ping' = any (event_types))),
  -- The whsec_ secret sealed with the master key; the plain value is shown once at creation.
  secret_sealed bytea not null,
  state text not null default 'active' constraint webhook_endpoints_state_check check (state in ('active', 'paused')),
  -- Deliveries in a row that failed finally; 5 pauses the endpoint, a success resets it.
  failure_streak integer not null default 0 constraint webhook_endpoints_failure_streak_min check (failure_streak >= 0),
  created_by uuid constraint webhook_endpoints_created_by_fkey references accounts (id) on delete set null,
  created_at timestamptz(3) not null,
  updated_at timestamptz(3) not null,
  paused_at timestamptz(3),
  -- Removed endpoints keep their delivery log until retention deletes it; they receive nothing.
  removed_at timestamptz(3),
  constraint webhook_endpoints_paused_shape check ((state = 'paused') = (paused_at is not null))
);
create index webhook_endpoints_workspace_idx on webhook_endpoints (workspace_id) where removed_at is null;
create index webhook_endpoints_created_by_idx on webhook_endpoints (created_by, workspace_id) where removed_at is null;

-- One prepared webhook message per event (or per test): `id` is the webhook-id and the body's `id`;
-- `body` holds the exact bytes sent on every attempt and every resend.
create table webhook_messages (
  id uuid constraint webhook_messages_pkey primary key,
  workspace_id uuid not null constraint webhook_messages_workspace_fkey references workspaces (id) on delete cascade,
  type text not null constraint webhook_messages_type_len check (length(type) between 1 and 64),
  -- openapi.yaml "Webhook request": "The body is at most 64 KiB."
  body text not null constraint webhook_messages_body_size check (octet_length(body) <= 65536),
  created_at timestamptz(3) not null
);
create index webhook_messages_created_idx on webhook_messages (created_at);

create table webhook_deliveries (
  id uuid constraint webhook_deliveries_pkey primary key default gen_random_uuid(),
  message_id uuid not null constraint webhook_deliveries_message_fkey references webhook_messages (id) on delete cascade,
  endpoint_id uuid not null constraint webhook_deliveries_endpoint_fkey references webhook_endpoints (id) on delete cascade,
  -- Copy of the endpoint's workspace: fairness and the start rate are per workspace.
  workspace_id uuid not null constraint webhook_deliveries_workspace_fkey references workspaces (id) on delete cascade,
  -- A ping from "endpoint test": never counts toward (or resets) the failure streak.
  is_test boolean not null default false,
  status text not null constraint webhook_deliveries_status_check
    check (status in ('pending', 'sending', 'succeeded', 'failed', 'cancelled')),
  -- Attempts whose outcome was recorded.
  attempt_count integer not null default 0 constraint webhook_deliveries_attempt_count_min check (attempt_count >= 0),
  -- The attempt number after which a failure is final: 8 for the schedule, +1 per resend.
  max_attempts integer not null constraint webhook_deliveries_max_attempts_min check (max_attempts >= 1),
  -- Due time while pending; kept while sending (orders lease-expired rows first).
  next_attempt_at timestamptz(3),
  -- Claim of one worker for one attempt; another worker may take the row once lease_until passed.
  lease_token uuid,
  lease_until timestamptz(3),
  resend_count integer not null default 0 constraint webhook_deliveries_resend_count_range check (resend_count between 0 and 5),
  -- Why a delivery ended without (further) attempts: endpoint_queue_full, endpoint_paused, endpoint_removed.
  failure_reason text constraint webhook_deliveries_failure_reason_len check (length(failure_reason) <= 64),
  created_at timestamptz(3) not null,
  updated_at timestamptz(3) not null,
  finished_at timestamptz(3),
  constraint webhook_deliveries_message_endpoint_key unique (message_id, endpoint_id),
  constraint webhook_deliveries_pending_shape check (status <> 'pending' or next_attempt_at is not null),
  constraint webhook_deliveries_lease_shape check ((status = 'sending') = (lease_token is not null and lease_until is not null)),
  constraint webhook_deliveries_finished_shape check ((status in ('succeeded', 'failed', 'cancelled')) = (finished_at is not null))
);
-- Open deliveries of one endpoint in due order: the claim, the 1,000-open limit, in-flight counts.
create index webhook_deliveries_open_idx on webhook_deliveries (endpoint_id, next_attempt_at)
  where status in ('pending', 'sending');
-- Workspaces with due work, and their never-attempted ("waiting") events.
create index webhook_deliveries_workspace_due_idx on webhook_deliveries (workspace_id, next_attempt_at)
  where status in ('pending', 'sending');
-- The delivery log of an endpoint, newest first; also the test-event window.
create index webhook_deliveries_log_idx on webhook_deliveries (endpoint_id, created_at desc, id desc);
create index webhook_deliveries_retention_idx on webhook_deliveries (updated_at)
  where status in ('succeeded', 'failed', 'cancelled');

create table webhook_attempts (
  id bigint constraint webhook_attempts_pkey primary key generated always as identity,
  delivery_id uuid not null constraint webhook_attempts_delivery_fkey references webhook_deliveries (id) on delete cascade,
  attempt integer not null constraint webhook_attempts_attempt_min check (attempt >= 1),
  attempted_at timestamptz(3) not null,
  succeeded boolean not null,
  status_code integer constraint webhook_attempts_status_code_range check (status_code between 100 and 999),
  error text constraint webhook_attempts_error_len check (length(error) <= 1000),
  duration_ms integer not null constraint webhook_attempts_duration_min check (duration_ms >= 0),
  response_prefix text constraint webhook_attempts_response_prefix_len check (length(response_prefix) <= 2048)
);
create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, id);

-- Round-robin order of workspaces and their start-rate window (docs/webhook-delivery.md "Fairness":
-- "Workspaces are served round-robin, longest-waiting first"; 60 deliveries started per minute).
create table webhook_workspace_state (
  workspace_id uuid constraint webhook_workspace_state_pkey primary key
    constraint webhook_workspace_state_workspace_fkey references workspaces (id) on delete cascade,
  -- Lower is served first; a served workspace moves behind all others.
  queue_position bigint not null,
  last_served_at timestamptz(3),
  window_started_at timestamptz(3),
  window_starts integer not null default 0 constraint webhook_workspace_state_window_starts_min check (window_starts >= 0)
);
create index webhook_workspace_state_queue_idx on webhook_workspace_state (queue_position, workspace_id);

-- Periodic jobs of the worker fleet (expire-offers, retention): a worker runs a job only after
-- moving next_run_at forward in one statement, so several workers run each job once per period.
create table worker_jobs (
  name text constraint worker_jobs_pkey primary key,
  next_run_at timestamptz(3) not null,
  last_run_at timestamptz(3)
);

-- Wakes idle workers as soon as a product action commits an outbox row (they also poll).
create function webhook_outbox_notify() returns trigger
  language plpgsql as $$
begin
  perform pg_notify('offerdesk_webhook_outbox', '');
  return null;
end
$$;
create trigger webhook_outbox_notify after insert on webhook_outbox
  for each statement execute function webhook_outbox_notify();
