import type { Queryable } from '../../db/connect.js';

/** A temporary failure: the mail waits until `nextAttemptAt`, with the server's answer kept. */
export async function retryMail(sql: Queryable, input: { id: string; reason: string; nextAttemptAt: Date }): Promise<void> {
  await sql`
    update mail_outbox
       set lease_until = null, next_attempt_at = ${input.nextAttemptAt}, last_error = ${input.reason}
     where id = ${input.id}::uuid and status = 'pending'`;
}
