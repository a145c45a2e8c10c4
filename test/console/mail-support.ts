import type { Sql } from '../../src/db/connect.js';

/**
 * What the console's self-service tests read: the mails the service wrote to the mail outbox
 * (src/mail/outbox.ts, the one place a mail exists before the worker sends it), and every log
 * line the service wrote, to prove a token never reaches one.
 */

export interface OutboxMail {
  kind: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  workspace_id: string | null;
}

export async function mailsTo(sql: Sql, recipient: string): Promise<OutboxMail[]> {
  return sql<OutboxMail[]>`
    select kind, recipient, subject, text_body, html_body, workspace_id
      from mail_outbox where lower(recipient) = lower(${recipient}) order by created_at, id`;
}

/** The one console link of a mail's text, and its token (from the fragment). */
export function linkOf(mail: OutboxMail): { url: string; token: string } {
  const match = /(https?:\/\/\S+#token=([A-Za-z0-9_-]+))/.exec(mail.text_body);
  if (!match) throw new Error(`no link in the mail "${mail.subject}"`);
  return { url: match[1]!, token: match[2]! };
}

/** Every log line the service writes (mail-core's helper): a token must reach none. */
export { capturedLogger as capturingLogger } from '../mail/helpers.js';
