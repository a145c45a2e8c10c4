-- Mail as an outbox (src/mail/): every mail is written here in the transaction of its cause and
-- sent by the worker, so a committed change always produces its mail and a rolled-back one never
-- does. Subject and bodies are erased once the mail is sent or refused: a sign-in or invitation
-- token lives here only until the mail has left. Mails kept for the development mailbox of the
-- embedded default (status 'kept') keep them, since reading them there is their whole point.
create table mail_outbox (
  id uuid constraint mail_outbox_pkey primary key default gen_random_uuid(),
  kind text not null constraint mail_outbox_kind_check check (kind in (
    'sign_in_link', 'password_reset', 'invitation',
    'endpoint_failing', 'endpoint_failures_3', 'endpoint_paused', 'endpoint_recovered')),
  workspace_id uuid constraint mail_outbox_workspace_fkey references workspaces (id) on delete cascade,
  recipient text not null constraint mail_outbox_recipient_len check (length(recipient) between 3 and 254),
  subject text constraint mail_outbox_subject_len check (length(subject) <= 998),
  text_body text constraint mail_outbox_text_size check (octet_length(text_body) <= 262144),
  html_body text constraint mail_outbox_html_size check (octet_length(html_body) <= 262144),
  -- pending: to be sent (or waiting for SMTP_URL); sent: accepted by the SMTP server; refused: a
  -- permanent refusal (SMTP 5xx) or temporary failures for longer than the retry window;
  -- kept: shown by the development mailbox instead of being sent.
  status text not null default 'pending' constraint mail_outbox_status_check
    check (status in ('pending', 'sent', 'refused', 'kept')),
  attempts integer not null default 0 constraint mail_outbox_attempts_min check (attempts >= 0),
  created_at timestamptz(3) not null default now(),
  -- Null: due at once (the enqueueing transaction has no clock); set by a retry's backoff.
  next_attempt_at timestamptz(3),
  -- A claim by one worker, so two workers never send the same mail at once.
  lease_until timestamptz(3),
  first_attempt_at timestamptz(3),
  finished_at timestamptz(3),
  -- The SMTP server's last answer (code and text, clipped); never the subject or a body.
  last_error text constraint mail_outbox_last_error_len check (length(last_error) <= 1000),
  constraint mail_outbox_bodies_shape check (status in ('sent', 'refused') or (subject is not null and text_body is not null and html_body is not null))
);
create index mail_outbox_due_idx on mail_outbox (created_at) where status = 'pending';
create index mail_outbox_mailbox_idx on mail_outbox (created_at desc) where status in ('kept', 'pending');
create index mail_outbox_workspace_idx on mail_outbox (workspace_id) where workspace_id is not null;

-- Wakes idle workers as soon as a transaction commits a mail (they also poll).
create function mail_outbox_notify() returns trigger
  language plpgsql as $$
begin
  perform pg_notify('offerdesk_mail_outbox', '');
  return null;
end
$$;
create trigger mail_outbox_notify after insert on mail_outbox
  for each statement execute function mail_outbox_notify();

-- Each member decides per workspace whether the endpoint health mails reach them (owners and
-- admins get them unless they switch them off).
alter table memberships
  add column endpoint_notices boolean not null default true;

-- Endpoint health as told to people (src/webhooks/engine/health.ts): healthy, failing (no success
-- for an hour while several attempts failed), failures_3 (3 of the 5 final failures in a row that
-- pause it), paused. One mail per change of state; failing_since is what the console shows.
alter table webhook_endpoints
  add column health_state text not null default 'healthy' constraint webhook_endpoints_health_state_check
    check (health_state in ('healthy', 'failing', 'failures_3', 'paused')),
  add column failing_since timestamptz(3),
  add column health_changed_at timestamptz(3),
  add constraint webhook_endpoints_health_shape check ((health_state = 'healthy') = (failing_since is null));
