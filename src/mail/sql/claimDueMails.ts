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
 * lets the receiving side tell a repeat). An endpoint health notice waits while an earlier one of
 * the same endpoint to the same recipient is still pending (sending, or waiting for a retry), so
 * mails sent side by side never tell "paused" before "close to pause" (README "Endpoint health
 * notices"; seq orders them, migration 0034).
 */
export async function claimDueMails(sql: Queryable, input: { now: Date; leaseUntil: Date; limit: number }): Promise<ClaimedMail[]> {
  return sql<ClaimedMail[]>`
    update mail_outbox m
       set lease_until = ${input.leaseUntil}, attempts = m.attempts + 1,
           first_attempt_at = coalesce(m.first_attempt_at, ${input.now})
     where m.id in (
       select o.id from mail_outbox o
        where o.status = 'pending'
          and (o.next_attempt_at is null or o.next_attempt_at <= ${input.now})
          and (o.lease_until is null or o.lease_until <= ${input.now})
          and (o.endpoint_id is null or not exists (
                select 1 from mail_outbox earlier
                 where earlier.endpoint_id = o.endpoint_id and earlier.recipient = o.recipient
                   and earlier.status = 'pending' and earlier.seq < o.seq))
        order by o.created_at, o.id
        limit ${input.limit}
          for update skip locked)
    returning m.id, m.kind, m.recipient, m.subject, m.text_body, m.html_body, m.attempts, m.first_attempt_at`;
}
