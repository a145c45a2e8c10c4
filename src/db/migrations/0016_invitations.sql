-- Self-service in the console (docs/console.md "Signing in", "Members"): emailed links for
-- password resets beside the sign-in links, and invitations of people into a workspace.

-- One table for every single-use account link sent by mail or printed by the operator: `sign_in`
-- (signs in) or `password_reset` (lets its holder set a new password). A link of one purpose is
-- never accepted for the other.
alter table sign_in_links
  add column purpose text not null default 'sign_in'
    constraint sign_in_links_purpose_check check (purpose in ('sign_in', 'password_reset'));

-- An invitation of an email address into a workspace with a role. Only SHA-256 of its token is
-- stored, as for sign-in links. It is pending until accepted, revoked or expired; accepting it
-- makes (or finds) the account of that address and adds it to the workspace.
create table invitations (
  id uuid constraint invitations_pkey primary key default gen_random_uuid(),
  workspace_id uuid not null constraint invitations_workspace_fkey references workspaces (id) on delete cascade,
  email text not null constraint invitations_email_len check (length(email) between 3 and 254),
  role text not null constraint invitations_role_check check (role in ('owner', 'admin', 'member')),
  token_hash bytea not null constraint invitations_token_hash_len check (length(token_hash) = 32),
  invited_by uuid constraint invitations_invited_by_fkey references accounts (id) on delete set null,
  created_at timestamptz(3) not null,
  expires_at timestamptz(3) not null,
  accepted_at timestamptz(3),
  accepted_by uuid constraint invitations_accepted_by_fkey references accounts (id) on delete set null,
  revoked_at timestamptz(3),
  constraint invitations_one_end check (accepted_at is null or revoked_at is null)
);
create unique index invitations_token_hash_key on invitations (token_hash);
-- One open invitation per address and workspace: inviting again replaces the open one.
create unique index invitations_open_key on invitations (workspace_id, lower(email))
  where accepted_at is null and revoked_at is null;
create index invitations_list_idx on invitations (workspace_id, created_at desc, id desc);
