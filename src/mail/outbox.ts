import type { Queryable } from '../db/connect.js';

/** Every mail the service writes; the database's mail_outbox_kind_check holds the same list. */
export const MAIL_KINDS = [
  'sign_in_link',
  'password_reset',
  'invitation',
  'endpoint_failing',
  'endpoint_failures_3',
  'endpoint_paused',
  'endpoint_recovered',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export interface MailDraft {
  kind: MailKind;
  /** One address (an account's email). */
  to: string;
  /** One line. Never put a token here: the subject is shown by the mailbox list and logs stay clear of it anyway. */
  subject: string;
  text: string;
  html: string;
  workspaceId?: string | null;
  /** The endpoint a health notice is about: its notices are sent in the order written (claimDueMails.ts). */
  endpointId?: string | null;
}

/** Longest subject a header line holds (RFC 5322 2.1.1: 998 characters per line). */
const MAX_SUBJECT_CHARS = 998;
/** The outbox's size check on each body (mail_outbox_text_size / mail_outbox_html_size). */
const MAX_BODY_BYTES = 256 * 1024;
/** An address as accounts hold it: one @, no spaces, no header-breaking characters, 3..254. */
const ADDRESS_FORM = /^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+$/;

/** A draft the outbox refuses; says which field, never its value (a body may hold a token). */
export class MailDraftError extends Error {
  override name = 'MailDraftError';
}

function check(draft: MailDraft): void {
  if (!(MAIL_KINDS as readonly string[]).includes(draft.kind)) throw new MailDraftError('mail kind is not one of MAIL_KINDS');
  if (draft.to.length > 254 || !ADDRESS_FORM.test(draft.to)) throw new MailDraftError('mail recipient is not a single address');
  if (draft.subject.length === 0 || draft.subject.length > MAX_SUBJECT_CHARS || /[\r\n]/.test(draft.subject)) {
    throw new MailDraftError(`mail subject must be one line of 1 to ${MAX_SUBJECT_CHARS} characters`);
  }
  for (const [name, body] of [['text', draft.text], ['html', draft.html]] as const) {
    if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) throw new MailDraftError(`mail ${name} body is over ${MAX_BODY_BYTES} bytes`);
  }
}

/**
 * Writes the mail into the outbox inside the caller's transaction (`tx`, the postgres.js
 * transaction the domain change runs in): the mail exists exactly when the change commits, and
 * the worker sends it afterwards (src/mail/sender.ts) with retries. Nothing here talks to SMTP.
 */
export async function enqueueMail(tx: Queryable, draft: MailDraft): Promise<void> {
  check(draft);
  await tx`
    insert into mail_outbox (kind, workspace_id, endpoint_id, recipient, subject, text_body, html_body)
    values (${draft.kind}, ${draft.workspaceId ?? null}::uuid, ${draft.endpointId ?? null}::uuid, ${draft.to}, ${draft.subject},
            ${draft.text}, ${draft.html})`;
}
