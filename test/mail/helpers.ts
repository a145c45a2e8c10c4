import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { Sql } from '../../src/db/connect.js';
import { enqueueMail, type MailDraft } from '../../src/mail/outbox.js';

/** A logger at the most talkative level whose every line is kept, to search for secrets. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), lines };
}

let counter = 0;

/** A sign-in mail carrying `token` in both bodies, written through the outbox as the domain does. */
export async function enqueueTokenMail(sql: Sql, token: string, to?: string): Promise<MailDraft> {
  counter += 1;
  const link = `http://localhost:8080/console/sign-in/link?token=${token}`;
  const draft: MailDraft = {
    kind: 'sign_in_link',
    to: to ?? `person-${counter}@agency.test`,
    subject: 'Your sign-in link',
    text: `Open ${link} within 15 minutes.`,
    html: `<p><a href="${link}">Sign in</a></p>`,
  };
  await sql.begin((tx) => enqueueMail(tx, draft));
  return draft;
}

/** The outbox rows, oldest first, without bodies. */
export async function outboxRows(sql: Sql) {
  return sql<{ id: string; recipient: string; status: string; attempts: number; last_error: string | null; next_attempt_at: Date | null }[]>`
    select id, recipient, status, attempts, last_error, next_attempt_at from mail_outbox order by created_at, id`;
}
