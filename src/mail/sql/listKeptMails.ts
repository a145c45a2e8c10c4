import type { Queryable } from '../../db/connect.js';

export interface KeptMail {
  id: string;
  at: Date;
  kind: string;
  to: string;
  subject: string;
}

/**
 * The newest mails of the development mailbox (local mode), without their bodies: those kept, and
 * those not yet kept by a worker (`serve --no-worker` keeps none), so nothing waits unseen.
 */
export async function listKeptMails(sql: Queryable, input: { limit: number }): Promise<KeptMail[]> {
  return sql<KeptMail[]>`
    select id, created_at as at, kind, recipient as to, subject
      from mail_outbox
     where status in ('kept', 'pending')
     order by created_at desc, id desc
     limit ${input.limit}`;
}

/** One mail of the mailbox with its bodies; null for any other id. */
export async function readKeptMail(sql: Queryable, input: { id: string }): Promise<(KeptMail & { text: string; html: string }) | null> {
  const [row] = await sql<(KeptMail & { text: string; html: string })[]>`
    select id, created_at as at, kind, recipient as to, subject, text_body as text, html_body as html
      from mail_outbox
     where id = ${input.id}::uuid and status in ('kept', 'pending')`;
  return row ?? null;
}
