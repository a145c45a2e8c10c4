import type { Queryable } from '../../db/connect.js';

export interface ClaimedMail {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  /** Counting this one. */
  attempts: number;
  first_attempt_at: Date;
}

/**
 * Claims up to `limit` due mails, oldest first, for `leaseUntil`: another worker skips them, and a
 * worker that dies mid-send leaves them to be tried again once the lease ends (the same Message-ID
 * lets the receiving side tell a repeat).
 */
export async function claimDueMails(sql: Queryable, input: { now: Date; leaseUntil: Date; limit: number }): Promise<ClaimedMail[]> {
  return sql<ClaimedMail[]>`
    update mail_outbox m
       set lease_until = ${input.leaseUntil}, attempts = m.attempts + 1,
           first_attempt_at = coalesce(m.first_attempt_at, ${input.now})
     where m.id in (
       select id from mail_outbox
        where status = 'pending'
          and (next_attempt_at is null or next_attempt_at <= ${input.now})
          and (lease_until is null or lease_until <= ${input.now})
        order by created_at, id
        limit ${input.limit}
          for update skip locked)
    returning m.id, m.kind, m.recipient, m.subject, m.text_body, m.html_body, m.attempts, m.first_attempt_at`;
}
