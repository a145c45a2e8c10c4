import type { Queryable } from '../../db/connect.js';

/**
 * The end of a mail: sent (accepted by the SMTP server), refused (for good) or unconfirmed (sent
 * in full, no verdict; not sent again). Its subject and bodies are erased, so a sign-in or
 * invitation token does not stay at rest once the mail left.
 */
export async function finishMail(
  sql: Queryable,
  input: { id: string; status: 'sent' | 'refused' | 'unconfirmed'; reason: string | null; now: Date },
): Promise<void> {
  await sql`
    update mail_outbox
       set status = ${input.status}, subject = null, text_body = null, html_body = null,
           lease_until = null, next_attempt_at = null, finished_at = ${input.now}, last_error = ${input.reason}
     where id = ${input.id}::uuid and status = 'pending'`;
}
