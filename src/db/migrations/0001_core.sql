-- Core data model: accounts, workspaces, API keys, offers with their sections and packages,
-- the per-offer timeline, and the webhook outbox that product actions write in their transaction.
-- Text lengths are bounded so that an Offer plus one timeline entry always fits in a 64 KiB
-- webhook body (openapi.yaml "Webhook request": "The body is at most 64 KiB").

create table accounts (
  id uuid constraint accounts_pkey primary key default gen_random_uuid(),
  email text not null constraint accounts_email_len check (length(email) between 3 and 254),
  name text not null constraint accounts_name_len check (length(name) between 1 and 200),
  created_at timestamptz(3) not null default now()
);
create unique index accounts_email_key on accounts (lower(email));

create table workspaces (
  id uuid constraint workspaces_pkey primary key default gen_random_uuid(),
  name text not null constraint workspaces_name_len check (length(name) between 1 and 200),
  timezone text not null constraint workspaces_timezone_len check (length(timezone) between 1 and 64),
  currency text not null constraint workspaces_currency_iso check (currency ~ '^[A-Z]{3}$'),
  -- Custom domain under which the workspace's offer pages are served; webhook endpoints may not use it.
  offer_domain text constraint workspaces_offer_domain_len check (length(offer_domain) between 1 and 253),
  created_at timestamptz(3) not null default now()
);
create unique index workspaces_offer_domain_key on workspaces (lower(offer_domain));

create table memberships (
  workspace_id uuid not null constraint memberships_workspace_fkey references workspaces (id) on delete cascade,
  account_id uuid not null constraint memberships_account_fkey references accounts (id) on delete cascade,
  role text not null constraint memberships_role_check check (role in ('owner', 'admin', 'member')),
  created_at timestamptz(3) not null default now(),
  constraint memberships_pkey primary key (workspace_id, account_id)
);
create index memberships_account_idx on memberships (account_id);

-- Keys are stored only as SHA-256 of the whole key. A key carries at least 190 bits of randomness,
-- so a fast hash is enough (no password stretching needed) and lookups stay one index probe.
create table api_keys (
  id uuid constraint api_keys_pkey primary key default gen_random_uuid(),
  workspace_id uuid not null constraint api_keys_workspace_fkey references workspaces (id) on delete cascade,
  name text not null constraint api_keys_name_len check (length(name) between 1 and 100),
  key_hash bytea not null constraint api_keys_key_hash_len check (length(key_hash) = 32),
  -- Last four characters, so a person can tell keys apart in a list without the key itself.
  key_hint text not null,
  created_by uuid constraint api_keys_created_by_fkey references accounts (id) on delete set null,
  created_at timestamptz(3) not null default now(),
  expires_at timestamptz(3),
  revoked_at timestamptz(3)
);
create unique index api_keys_key_hash_key on api_keys (key_hash);
create index api_keys_workspace_idx on api_keys (workspace_id);

create table offers (
  id uuid constraint offers_pkey primary key default gen_random_uuid(),
  workspace_id uuid not null constraint offers_workspace_fkey references workspaces (id) on delete cascade,
  title text not null constraint offers_title_len check (length(title) between 1 and 500),
  status text not null constraint offers_status_check
    check (status in ('draft', 'sent', 'accepted', 'declined', 'expired', 'withdrawn')),
  created_at timestamptz(3) not null,
  updated_at timestamptz(3) not null,
  sent_at timestamptz(3),
  expires_at timestamptz(3),
  accepted_at timestamptz(3),
  expired_at timestamptz(3),
  version integer constraint offers_version_min check (version >= 1),
  recipient_name text constraint offers_recipient_name_len check (length(recipient_name) <= 200),
  recipient_company text constraint offers_recipient_company_len check (length(recipient_company) <= 200),
  recipient_email text constraint offers_recipient_email_len check (length(recipient_email) <= 254),
  accepted_by_name text constraint offers_accepted_by_name_len check (length(accepted_by_name) <= 200),
  accepted_by_email text constraint offers_accepted_by_email_len check (length(accepted_by_email) <= 254),
  -- Number of signatures the sent version needs; more than one makes it a multi-signer offer.
  signers_required integer not null default 1 constraint offers_signers_required_range check (signers_required between 1 and 20),
  currency text not null constraint offers_currency_iso check (currency ~ '^[A-Z]{3}$'),
  -- Derived from the pricing sections (see domain/value.ts), kept in the same transaction as they change.
  value_amount bigint not null default 0 constraint offers_value_amount_range check (value_amount between 0 and 9007199254740991),
  -- Token of the public recipient link; never leaves the service through the API or webhooks.
  public_token text not null default replace(gen_random_uuid()::text, '-', ''),
  -- Message to the recipient; never leaves the service.
  message text constraint offers_message_len check (length(message) <= 10000),
  -- Highest sequence used in offer_events; the next entry takes last_sequence + 1 (no gaps).
  last_sequence integer not null default 0,
  -- Highest version whose first view was recorded (offer.first_viewed fires once per version).
  first_viewed_version integer,
  constraint offers_draft_shape check (
    status <> 'draft' or (sent_at is null and expires_at is null and version is null)),
  constraint offers_sent_shape check (
    status = 'draft' or (sent_at is not null and expires_at is not null and version is not null)),
  constraint offers_accepted_shape check (
    (status = 'accepted') = (accepted_at is not null)),
  constraint offers_expired_shape check (
    (status = 'expired') = (expired_at is not null))
);
-- Keyset pagination of GET /offers: (created_at desc, id desc) within one workspace, index only.
create index offers_list_idx on offers (workspace_id, created_at desc, id desc);
create index offers_status_list_idx on offers (workspace_id, status, created_at desc, id desc);
-- Sent offers by deadline: the expiry job, and the "sent but already past expires_at" part of
-- the status filter (openapi.yaml "Offer states": such an offer is reported as expired).
create index offers_sent_deadline_idx on offers (expires_at, workspace_id) where status = 'sent';

-- Content and pricing sections of an offer, in display order. Never returned by the API.
create table offer_sections (
  offer_id uuid not null constraint offer_sections_offer_fkey references offers (id) on delete cascade,
  position integer not null constraint offer_sections_position_min check (position >= 1),
  section_id text not null constraint offer_sections_section_id_len check (length(section_id) between 1 and 64),
  kind text not null constraint offer_sections_kind_check check (kind in ('text', 'pricing')),
  title text not null default '' constraint offer_sections_title_len check (length(title) <= 500),
  body text not null default '' constraint offer_sections_body_len check (length(body) <= 100000),
  visible boolean not null default true,
  constraint offer_sections_pkey primary key (offer_id, position),
  constraint offer_sections_section_id_key unique (offer_id, section_id)
);

create table offer_packages (
  offer_id uuid not null,
  section_position integer not null,
  position integer not null constraint offer_packages_position_min check (position >= 1),
  name text not null constraint offer_packages_name_len check (length(name) between 1 and 200),
  amount bigint not null constraint offer_packages_amount_range check (amount between 0 and 9007199254740991),
  recommended boolean not null default false,
  constraint offer_packages_pkey primary key (offer_id, section_position, position),
  constraint offer_packages_section_fkey foreign key (offer_id, section_position)
    references offer_sections (offer_id, position) on delete cascade
);

-- The timeline: sequence 1..n per offer without gaps (openapi.yaml "OfferEvent").
create table offer_events (
  offer_id uuid not null constraint offer_events_offer_fkey references offers (id) on delete cascade,
  sequence integer not null constraint offer_events_sequence_min check (sequence >= 1),
  type text not null constraint offer_events_type_len check (length(type) between 1 and 40),
  occurred_at timestamptz(3) not null,
  version integer constraint offer_events_version_min check (version >= 1),
  data jsonb not null default '{}'
    constraint offer_events_data_object check (jsonb_typeof(data) = 'object' and length(data::text) <= 2048),
  -- Recipient's address and browser; kept for the product, never returned (openapi.yaml "Scope").
  ip inet,
  user_agent text constraint offer_events_user_agent_len check (length(user_agent) <= 1000),
  constraint offer_events_pkey primary key (offer_id, sequence)
);

-- Signatures of a multi-signer offer, per sent version.
create table offer_signatures (
  offer_id uuid not null constraint offer_signatures_offer_fkey references offers (id) on delete cascade,
  version integer not null,
  signing_order integer not null constraint offer_signatures_order_min check (signing_order >= 1),
  signer_name text not null constraint offer_signatures_name_len check (length(signer_name) between 1 and 200),
  signer_email text not null constraint offer_signatures_email_len check (length(signer_email) between 3 and 254),
  signer_role text constraint offer_signatures_role_len check (length(signer_role) <= 100),
  signed_at timestamptz(3) not null,
  constraint offer_signatures_pkey primary key (offer_id, version, signing_order)
);
create unique index offer_signatures_signer_key on offer_signatures (offer_id, version, lower(signer_email));

-- Secrets the service makes for itself (the cursor signing key), shared by every process on
-- one database so cursors from one API process are accepted by another.
create table service_secrets (
  name text constraint service_secrets_pkey primary key,
  value bytea not null,
  created_at timestamptz not null default now()
);

-- Transactional outbox: a product action that has a webhook type writes its row here in the
-- same transaction as the offer change and the timeline entry (nothing lost, nothing sent for a
-- rollback). The webhook engine turns rows into deliveries.
create table webhook_outbox (
  id uuid constraint webhook_outbox_pkey primary key default gen_random_uuid(),
  workspace_id uuid not null constraint webhook_outbox_workspace_fkey references workspaces (id) on delete cascade,
  type text not null constraint webhook_outbox_type_len check (length(type) between 1 and 64),
  offer_id uuid not null,
  offer_sequence integer not null,
  occurred_at timestamptz(3) not null,
  -- offer.expired is dispatched about two minutes after detection (openapi.yaml "Webhook events").
  available_at timestamptz(3) not null,
  created_at timestamptz(3) not null default now(),
  constraint webhook_outbox_event_fkey foreign key (offer_id, offer_sequence)
    references offer_events (offer_id, sequence) on delete cascade
);
create index webhook_outbox_available_idx on webhook_outbox (available_at);
create index webhook_outbox_workspace_idx on webhook_outbox (workspace_id, available_at);

-- openapi.yaml "Timestamp": a value outside years 0001 to 9999 is reported as the nearest edge of
-- that range. One definition of the wire format, used by every query that returns a timestamp.
create function api_timestamp(t timestamptz) returns text
  language sql stable parallel safe
  return case when t is null then null else to_char(
    greatest(least(t, timestamptz '9999-12-31 23:59:59.999+00'), timestamptz '0001-01-01 00:00:00+00')
      at time zone 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end;
