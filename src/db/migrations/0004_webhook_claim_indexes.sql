-- Indexes for the two webhook statements that run on every worker step and would otherwise read
-- every open delivery (benchmark: 200,000 pending deliveries over 100 workspaces x 2 endpoints).
--
-- The claim (src/webhooks/sql/claimDeliveries.ts) counts, for each endpoint, the attempts in
-- flight fleet-wide (status 'sending', lease not yet passed). Through webhook_deliveries_open_idx
-- that visits every open row of the endpoint, up to 1,000 heap rows per endpoint: 2.0-2.8 s per
-- claim under EXPLAIN ANALYZE, 198,000 buffers. Only in-flight rows are indexed here (at most the
-- fleet's concurrency), so the count reads a handful of entries: 26-55 ms, 7,300 buffers.
create index webhook_deliveries_sending_idx on webhook_deliveries (endpoint_id, lease_until)
  where status = 'sending';

-- docs/webhook-delivery.md "Limits": 1,000 events waiting per workspace. Fan-out counts a workspace's
-- waiting events (distinct messages with a never-attempted, non-test open delivery) up to the
-- limit (src/webhooks/sql/countWaitingEvents.ts); this index holds exactly those rows in message
-- order, so the count is an index-only scan of at most limit x endpoints entries: 6-15 ms against
-- 50-70 ms without it, for 20 workspaces.
create index webhook_deliveries_waiting_idx on webhook_deliveries (workspace_id, message_id)
  where status in ('pending', 'sending') and attempt_count = 0 and not is_test;
