-- A mail whose message went out to its final "." without a reply from the SMTP server (a timeout
-- or a lost connection) may have been accepted: it ends as 'unconfirmed' and is not sent again,
-- so a person never gets it twice (src/mail/transport.ts SendResult). Like a sent or refused mail,
-- its subject and bodies are erased: a token does not stay at rest once the mail left.
alter table mail_outbox
  drop constraint mail_outbox_status_check,
  add constraint mail_outbox_status_check check (status in ('pending', 'sent', 'refused', 'unconfirmed', 'kept')),
  drop constraint mail_outbox_bodies_shape,
  add constraint mail_outbox_bodies_shape
    check (status in ('sent', 'refused', 'unconfirmed') or (subject is not null and text_body is not null and html_body is not null));
