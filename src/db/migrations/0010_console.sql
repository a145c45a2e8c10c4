-- The management console (console-api.yaml "Webhook endpoints" and "API keys": the
-- "management interface"): passwords, sign-in links, sessions in PostgreSQL (so several API
-- processes share them), the audit log, and a visible key prefix for key lists.

-- argon2id PHC string ($argon2id$v=19$m=...,t=...,p=...$salt$hash); null: no password set, the
-- account signs in only through a sign-in link.
alter table accounts
  add column password_hash text constraint accounts_password_hash_len check (length(password_hash) <= 512),
  add column password_changed_at timestamptz(3);

-- Sessions: only SHA-256 of the cookie value is stored. A session ends at the earlier of its idle
-- and its absolute expiry; the idle expiry slides forward on use (src/domain/sessions.ts).
create table console_sessions (
  id uuid constraint console_sessions_pkey primary key default gen_random_uuid(),
  token_hash bytea not null constraint console_sessions_token_hash_len check (length(token_hash) = 32),
  account_id uuid not null constraint console_sessions_account_fkey references accounts (id) on delete cascade,
  created_at timestamptz(3) not null,
  last_seen_at timestamptz(3) not null,
  idle_expires_at timestamptz(3) not null,
  absolute_expires_at timestamptz(3) not null,
  ip inet,
  user_agent text constraint console_sessions_user_agent_len check (length(user_agent) <= 1000)
);
create unique index console_sessions_token_hash_key on console_sessions (token_hash);
create index console_sessions_account_idx on console_sessions (account_id);
create index console_sessions_expiry_idx on console_sessions (absolute_expires_at);

-- One-time sign-in links: single use, 15 minutes, stored as SHA-256 of the token only.
create table sign_in_links (
  id uuid constraint sign_in_links_pkey primary key default gen_random_uuid(),
  token_hash bytea not null constraint sign_in_links_token_hash_len check (length(token_hash) = 32),
  account_id uuid not null constraint sign_in_links_account_fkey references accounts (id) on delete cascade,
  created_at timestamptz(3) not null,
  expires_at timestamptz(3) not null,
  used_at timestamptz(3)
);
create unique index sign_in_links_token_hash_key on sign_in_links (token_hash);
create index sign_in_links_expiry_idx on sign_in_links (expires_at);

-- Every management change and sign-in of a workspace, written in the transaction of the change.
-- `details` never holds a secret or key value. The actor is an account (or null once deleted);
-- `actor_label` says through what it acted ("console", "operator (CLI)").
create table audit_entries (
  id uuid constraint audit_entries_pkey primary key default gen_random_uuid(),
  workspace_id uuid not null constraint audit_entries_workspace_fkey references workspaces (id) on delete cascade,
  actor_account_id uuid constraint audit_entries_actor_fkey references accounts (id) on delete set null,
  actor_label text not null constraint audit_entries_actor_label_len check (length(actor_label) between 1 and 100),
  action text not null constraint audit_entries_action_len check (length(action) between 1 and 64),
  target_type text constraint audit_entries_target_type_len check (length(target_type) <= 64),
  target_id text constraint audit_entries_target_id_len check (length(target_id) <= 100),
  details jsonb not null default '{}'
    constraint audit_entries_details_object check (jsonb_typeof(details) = 'object' and length(details::text) <= 4096),
  ip inet,
  created_at timestamptz(3) not null
);
-- Keyset listing of one workspace's log, newest first.
create index audit_entries_list_idx on audit_entries (workspace_id, created_at desc, id desc);

-- The visible start of a key ("odk_live_AbCd": the fixed prefix and four random characters), so
-- lists can show it. Keys made before this column existed are known only by their last four
-- characters (key_hint): they get the fixed prefix, an ellipsis and that hint ("odk_live_…wxyz").
alter table api_keys add column key_prefix text;
update api_keys set key_prefix = 'odk_live_…' || key_hint where key_prefix is null;
alter table api_keys
  alter column key_prefix set not null,
  add constraint api_keys_key_prefix_len check (length(key_prefix) between 1 and 32);
