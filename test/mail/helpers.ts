import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Sql } from '../../src/db/connect.js';
import { enqueueMail, type MailDraft } from '../../src/mail/outbox.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';

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

export interface SmtpTestBed {
  db: TestDatabase;
  smtp: SmtpReceiver;
  clock: ManualClock;
  log: ReturnType<typeof capturedLogger>;
}

/**
 * A test file's own database and real SMTP server, and before each test an empty outbox, a
 * server that answers at once and has received nothing, the clock at a fixed time and a new
 * captured log. Its fields are set in the hooks it registers: read them inside tests.
 */
export function smtpTestBed(options: Parameters<typeof startSmtpReceiver>[0] = {}): SmtpTestBed {
  const bed = { clock: new ManualClock() } as SmtpTestBed;
  beforeAll(async () => {
    bed.db = await freshDatabase();
    bed.smtp = await startSmtpReceiver(options);
  });
  afterAll(async () => {
    await bed.smtp?.close();
    await bed.db?.drop();
  });
  beforeEach(async () => {
    await bed.db.sql`truncate mail_outbox`;
    bed.smtp.reset();
    bed.clock.set('2026-01-15T10:00:00.000Z');
    bed.log = capturedLogger();
  });
  return bed;
}
