-- GET /offers?status=expired lists the sent offers past their deadline that the expiry job has
-- not marked yet, newest first (src/read-model/offers.ts, overduePageIds). By deadline alone
-- (offers_sent_deadline_list_idx) a page has to read and sort every overdue offer due since its
-- bound: about 7,000 entries in the 1M-offer benchmark, and on deep pages every overdue offer
-- created after the cursor as well. Here the sent offers are grouped by the week of their
-- deadline, and within a week kept in list order: a week that has ended holds overdue offers
-- only, so the page reads at most n + 1 entries of each week it spans, in creation order.
-- The expression must stay exactly the read's (deadlineWeekSql in offers.ts) for the planner to
-- use this index; expires_at is included so the read needs no table row.
create index offers_sent_deadline_week_list_idx on offers (
  workspace_id,
  date_bin(interval '7 days', expires_at, timestamptz '2000-01-03 00:00:00+00'),
  created_at desc,
  id desc
) include (expires_at) where status = 'sent';
