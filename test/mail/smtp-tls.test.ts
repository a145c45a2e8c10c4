import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadMailConfig } from '../../src/config/mail.js';
import { ConfigError } from '../../src/config/values.js';
import { sendDueMails, type MailDispatchDeps } from '../../src/mail/dispatch.js';
import { createSmtpTransport } from '../../src/mail/transport.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { capturedLogger, enqueueTokenMail, outboxRows } from './helpers.js';
import { SMTP_PASSWORD, SMTP_USER, startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';

/**
 * SMTP_URL's credentials only travel over TLS (README "Mail"): a real SMTP server that offers
 * AUTH but no STARTTLS (as one whose STARTTLS a man in the middle stripped) gets no AUTH and no
 * mail, unless SMTP_ALLOW_PLAINTEXT_AUTH names it a trusted relay.
 */

const FROM = 'Offerdesk <mail@desk.example.com>';
let db: TestDatabase;
let smtp: SmtpReceiver;
const clock = new ManualClock();
let log: ReturnType<typeof capturedLogger>;
let credentialsUrl: string;

beforeAll(async () => {
  db = await freshDatabase();
  smtp = await startSmtpReceiver({ auth: true });
  credentialsUrl = `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`;
});
afterAll(async () => {
  await smtp?.close();
  await db?.drop();
});
beforeEach(async () => {
  await db.sql`truncate mail_outbox`;
  smtp.received.length = 0;
  smtp.logins.length = 0;
  clock.set('2026-01-15T10:00:00.000Z');
  log = capturedLogger();
});

function deps(allowPlaintextAuth: boolean | undefined): MailDispatchDeps {
  const mail = loadMailConfig({ SMTP_URL: credentialsUrl, ...(allowPlaintextAuth === undefined ? {} : { SMTP_ALLOW_PLAINTEXT_AUTH: String(allowPlaintextAuth) }) }, 'postgres://db', '0.0.0.0');
  return { sql: db.sql, clock, logger: log.logger, transport: createSmtpTransport({ ...mail, from: FROM }), messageIdDomain: 'desk.example.com' };
}

describe('SMTP credentials and TLS', () => {
  it('sends no AUTH and no mail to a server without STARTTLS, and records why', async () => {
    await enqueueTokenMail(db.sql, 'odl_tls000000000000000000000000');
    expect(await sendDueMails(deps(undefined))).toEqual(['retry']);
    expect(smtp.logins).toEqual([]);
    expect(smtp.received).toHaveLength(0);
    const [row] = await outboxRows(db.sql);
    expect(row!.status).toBe('pending');
    expect(row!.last_error).toMatch(/^no TLS with the SMTP server, so the credentials of SMTP_URL were not sent \(SMTP_ALLOW_PLAINTEXT_AUTH/);
    expect(log.lines.join('')).not.toContain(SMTP_PASSWORD);
  });

  it('logs in and sends over plain SMTP when SMTP_ALLOW_PLAINTEXT_AUTH is true', async () => {
    await enqueueTokenMail(db.sql, 'odl_plain0000000000000000000000');
    expect(await sendDueMails(deps(true))).toEqual(['sent']);
    expect(smtp.logins).toEqual([SMTP_USER]);
    expect(smtp.received).toHaveLength(1);
  });

  it('reads SMTP_ALLOW_PLAINTEXT_AUTH as a boolean, false unless set', () => {
    expect(loadMailConfig({ SMTP_URL: credentialsUrl }, undefined, '127.0.0.1').allowPlaintextAuth).toBe(false);
    expect(loadMailConfig({ SMTP_URL: credentialsUrl, SMTP_ALLOW_PLAINTEXT_AUTH: 'true' }, undefined, '127.0.0.1').allowPlaintextAuth).toBe(true);
    expect(() => loadMailConfig({ SMTP_URL: credentialsUrl, SMTP_ALLOW_PLAINTEXT_AUTH: 'maybe' }, undefined, '127.0.0.1')).toThrow(ConfigError);
  });
});
