-- The queue's state for the metrics (docs/operations.md "Metrics"): one worker of the fleet
-- measures it every 15 s (the periodic job `metrics-snapshot`, claimed through worker_jobs like
-- the others) and writes this one row; every process's GET /metrics reads it by its key, so a
-- scrape costs one row read however long the queue is, never a count over the deliveries.
create table metrics_snapshot (
  -- Always true: the table holds at most one row.
  id boolean constraint metrics_snapshot_pkey primary key default true constraint metrics_snapshot_one_row check (id),
  taken_at timestamptz(3) not null,
  -- Pending and due: waiting for a claim.
  deliveries_waiting bigint not null,
  -- Pending and due later: a retry's pause.
  deliveries_scheduled bigint not null,
  -- Claimed, an attempt running (or its lease not yet taken back).
  deliveries_in_flight bigint not null,
  -- Due time of the oldest waiting delivery; null when none waits.
  oldest_due_at timestamptz(3),
  -- Outbox rows due for fan-out.
  outbox_waiting bigint not null,
  endpoints_active bigint not null,
  endpoints_paused bigint not null
);

-- offerdesk_webhook_end_to_end_seconds runs from the event's commit to its first 2xx: the commit's
-- time (the outbox row's created_at, written by the product's transaction) is kept on the message
-- when the outbox row is fanned out and deleted. Null for pings and for messages made before this.
alter table webhook_messages add column event_recorded_at timestamptz(3);
