-- The claim (src/webhooks/sql/claimDeliveries.ts) must cost the same with 2,000 or 200,000 open
-- deliveries: a webhook service is judged when a backlog exists.
--
-- Open deliveries of one endpoint in exactly the claim's order (next_attempt_at, id), so the
-- claim reads the few it takes and stops. Without id it reads and sorts every open row of the
-- endpoint: a fan-out gives a whole batch one next_attempt_at, so the tie-break on id needs them
-- all (up to 1,000 per endpoint). The index keeps its name and rows and gains id.
drop index webhook_deliveries_open_idx;
create index webhook_deliveries_open_idx on webhook_deliveries (endpoint_id, next_attempt_at, id)
  where status in ('pending', 'sending');

