-- Endpoint health notices in the mail outbox carry their endpoint and the order they were written
-- in, so that one endpoint's notices reach each recipient in the order of its changes of state
-- (src/mail/sql/claimDueMails.ts) and a rise can take back the lower warnings of the same
-- endpoint not yet sent (src/webhooks/sql/supersedeNotices.ts; README "Endpoint health notices").
--
-- - endpoint_id: null for every other mail. No foreign key: an endpoint is removed by marking it,
--   and its rows go with their workspace (mail_outbox_workspace_fkey).
-- - seq: taken from a sequence when the row is inserted. A notice is written while its
--   transaction holds the endpoint's row (changeHealth's update), so for one endpoint a later
--   change of state always has the higher number; created_at, the transaction's start, does not
--   order them.
--
-- Both columns are added without a default, so no row is rewritten; rows already there have
-- neither and are sent in outbox order, as any mail without an endpoint.
create sequence mail_outbox_seq;
alter table mail_outbox add column endpoint_id uuid, add column seq bigint;
alter sequence mail_outbox_seq owned by mail_outbox.seq;
alter table mail_outbox alter column seq set default nextval('mail_outbox_seq');
-- The claim's look for an earlier unsent notice of the same endpoint and recipient.
create index mail_outbox_endpoint_pending_idx on mail_outbox (endpoint_id, recipient, seq)
  where status = 'pending' and endpoint_id is not null;
