import type { Queryable } from '../../db/connect.js';

/**
 * Local mode (the embedded default without SMTP_URL): every pending mail is kept for the
 * development mailbox instead of being sent. Returns what was kept, for the log (never a body).
 */
export async function keepPendingMails(sql: Queryable, input: { now: Date }): Promise<{ id: string; kind: string }[]> {
  return sql<{ id: string; kind: string }[]>`
    update mail_outbox
       set status = 'kept', finished_at = ${input.now}, lease_until = null
     where status = 'pending'
    returning id, kind`;
}
