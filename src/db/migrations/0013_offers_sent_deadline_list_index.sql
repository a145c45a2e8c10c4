-- GET /offers?status=expired finds the sent offers past their deadline that the expiry job has
-- not marked yet (src/read-model/offers.ts, overduePageIds). Walking offers_sent_list_idx newest
-- first passes every sent offer that is not yet due (180,000 in the 1M-offer benchmark, 60 ms
-- alone). By deadline, only the overdue ones are in range: this index serves the deadline walk
-- and the candidates' creation order without reading the table.
create index offers_sent_deadline_list_idx on offers (workspace_id, expires_at desc)
  include (created_at, id) where status = 'sent';
