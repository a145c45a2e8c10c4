import type { Clock } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { coerceError, type Logger } from '../log.js';
import { MAIL_BATCH_SIZE, MAIL_LEASE_MS, MAIL_RETRY_WINDOW_MS, nextMailAttemptAt } from './policy.js';
import { claimDueMails, type ClaimedMail } from './sql/claimDueMails.js';
import { finishMail } from './sql/finishMail.js';
import { keepPendingMails } from './sql/keepPendingMails.js';
import { retryMail } from './sql/retryMail.js';
import type { MailOutcome, MailTransport, SendResult } from './transport.js';

export interface MailDispatchDeps {
  sql: Sql;
  clock: Clock;
  logger: Logger;
  transport: MailTransport;
  /** `<id@domain>` of every Message-ID (transport.ts messageIdDomain of MAIL_FROM). */
  messageIdDomain: string;
  /** Told the outcome of every send attempt (the metrics hook); a closed set of values. */
  recordMailOutcome?: (outcome: MailOutcome) => void;
}

/** The Message-ID of an outbox row: the same on every retry, so a repeat is recognisable. */
export function mailMessageId(id: string, domain: string): string {
  return `<${id}@${domain}>`;
}

/**
 * Claims the due mails (up to MAIL_BATCH_SIZE) and sends them, each outcome recorded as it
 * comes. Log lines name the mail by id and kind only: subject and body may carry a token.
 */
export async function sendDueMails(deps: MailDispatchDeps): Promise<MailOutcome[]> {
  const now = deps.clock.now();
  const claimed = await claimDueMails(deps.sql, { now, leaseUntil: new Date(now.getTime() + MAIL_LEASE_MS), limit: MAIL_BATCH_SIZE });
  return Promise.all(claimed.map((mail) => sendOne(deps, mail)));
}

async function sendOne(deps: MailDispatchDeps, mail: ClaimedMail): Promise<MailOutcome> {
  let result: SendResult;
  try {
    result = await deps.transport.send({
      messageId: mailMessageId(mail.id, deps.messageIdDomain),
      to: mail.recipient,
      subject: mail.subject,
      text: mail.text_body,
      html: mail.html_body,
    });
  } catch (thrown) {
    result = { outcome: 'retry' as const, reason: `internal error: ${coerceError(thrown).message}` };
  }
  const now = deps.clock.now();
  const about = { mailId: mail.id, kind: mail.kind, attempt: mail.attempts };
  let outcome: MailOutcome = result.outcome;
  if (result.outcome === 'sent') {
    await finishMail(deps.sql, { id: mail.id, status: 'sent', reason: null, now });
    deps.logger.info(about, 'mail sent');
  } else if (result.outcome === 'refused') {
    await finishMail(deps.sql, { id: mail.id, status: 'refused', reason: result.reason, now });
    deps.logger.warn({ ...about, reason: result.reason }, 'mail refused by the SMTP server; not retried');
  } else if (result.outcome === 'unconfirmed') {
    // Sent to its end without a verdict: the server may have it. Not sent again (a repeat would
    // reach the person twice); the row and this line tell an operator what to check.
    await finishMail(deps.sql, { id: mail.id, status: 'unconfirmed', reason: result.reason, now });
    deps.logger.error({ ...about, reason: result.reason }, 'mail sent but not confirmed by the SMTP server; not sent again');
  } else {
    const next = nextMailAttemptAt({ attempts: mail.attempts, firstAttemptAt: mail.first_attempt_at, now });
    if (next) {
      await retryMail(deps.sql, { id: mail.id, reason: result.reason, nextAttemptAt: next });
      deps.logger.warn({ ...about, reason: result.reason, nextAttemptAt: next.toISOString() }, 'mail not sent; will retry');
    } else {
      outcome = 'refused';
      const reason = `gave up after ${MAIL_RETRY_WINDOW_MS / 3_600_000} hours of temporary failures; last: ${result.reason}`;
      await finishMail(deps.sql, { id: mail.id, status: 'refused', reason, now });
      deps.logger.error({ ...about, reason }, 'mail not sent; given up');
    }
  }
  deps.recordMailOutcome?.(outcome);
  return outcome;
}

/** Local mode: pending mails go to the development mailbox (`mailboxUrl`), announced by id. */
export async function keepMailsLocally(deps: Pick<MailDispatchDeps, 'sql' | 'clock' | 'logger'>, mailboxUrl: string): Promise<number> {
  const kept = await keepPendingMails(deps.sql, { now: deps.clock.now() });
  for (const mail of kept) deps.logger.info({ mailId: mail.id, kind: mail.kind, mailbox: mailboxUrl }, `mail kept: read it at ${mailboxUrl}`);
  return kept.length;
}
