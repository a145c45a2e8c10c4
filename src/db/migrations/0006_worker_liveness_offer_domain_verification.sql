-- 1. Workers known to be alive. Each worker process holds a session-level advisory lock
-- (pg_advisory_lock(class, worker id), see src/webhooks/liveness.ts) for as long as it runs, and
-- writes its id on every delivery it claims. A `sending` row whose worker no longer holds its lock
-- (the process was killed, its session is gone) is claimable at once instead of after its lease,
-- and no longer counts toward the endpoint's attempts in flight. Meaningful only while the row is
-- `sending`; null for claims of a process without a lock (then the lease alone decides).
alter table webhook_deliveries add column lease_worker integer;

-- 2. A custom offer-page domain counts in the endpoint address rules (console-api.yaml
-- "Endpoint addresses": "a custom domain a workspace uses for its offer pages") only once the workspace has
-- shown it controls the domain: a DNS TXT record carrying offer_domain_token. Domains already
-- claimed when this migration runs are unverified until verified again.
alter table workspaces
  add column offer_domain_token text constraint workspaces_offer_domain_token_len check (length(offer_domain_token) between 16 and 128),
  add column offer_domain_verified_at timestamptz(3);

update workspaces
   set offer_domain_token = replace(gen_random_uuid()::text, '-', '')
 where offer_domain is not null;

alter table workspaces
  add constraint workspaces_offer_domain_token_shape
    check ((offer_domain is null) = (offer_domain_token is null)),
  add constraint workspaces_offer_domain_verified_shape
    check (offer_domain_verified_at is null or offer_domain is not null);

-- The address rules read verified domains only.
create index workspaces_offer_domain_verified_idx on workspaces (offer_domain) where offer_domain_verified_at is not null;
