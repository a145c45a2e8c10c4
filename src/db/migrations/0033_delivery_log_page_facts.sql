-- What a page of the console's delivery log shows of a finished delivery, on its log row: the
-- offer of its event and the status of its last response, written once, when the delivery ends
-- (the worker knows both then). Without them each row of a page probes the message's day and
-- up to three days of attempts by random UUID keys: with a 30-day log larger than the page cache
-- those probes are most of an uncached page's reads (docs/scaling.md "The delivery log's pages").
--
-- - webhook_queue.offer_id: copied from the message at fan-out and carried into the log row (and
--   back on a resend), as event_type already is. An open delivery's last response status is not
--   stored: it changes with every attempt, and the page reads it from the attempts.
-- - Null means "not written here": rows from before this migration, rows an older worker writes
--   while it drains, test events (no offer) and deliveries whose last attempt had no response.
--   The page then reads the message or the attempts (src/webhooks/sql/listDeliveryLog.ts),
--   so the answer is the same either way and nothing is backfilled: old rows keep the old cost
--   until retention drops their days.
--
-- Adding a nullable column without a default writes no row: a moment's exclusive lock on each
-- table (and each partition of the log), then workers go on.
alter table webhook_queue add column offer_id uuid;
alter table webhook_delivery_log add column offer_id uuid, add column last_response_status integer;

-- The view gains both at its end (a view's columns may only be added there).
create or replace view webhook_deliveries as
  select q.id, q.message_id, q.endpoint_id, q.workspace_id, q.is_test, q.status, q.attempt_count, q.max_attempts,
         q.next_attempt_at, q.lease_token, q.lease_until, q.resend_count, null::text as failure_reason, q.created_at,
         q.updated_at, null::timestamptz(3) as finished_at, q.event_type, q.lease_worker, q.offer_id,
         null::integer as last_response_status
    from webhook_queue q
  union all
  select l.id, l.message_id, l.endpoint_id, l.workspace_id, l.is_test, l.status, l.attempt_count, l.max_attempts,
         l.next_attempt_at, null::uuid, null::timestamptz(3), l.resend_count, l.failure_reason, l.created_at,
         l.updated_at, l.finished_at, l.event_type, null::integer, l.offer_id, l.last_response_status
    from webhook_delivery_log l;
