import { describe, expect, it } from 'vitest';
import { loadMailConfig } from '../../src/config/mail.js';
import { ConfigError } from '../../src/config/values.js';
import { sendDueMails, type MailDispatchDeps } from '../../src/mail/dispatch.js';
import { createSmtpTransport } from '../../src/mail/transport.js';
import { enqueueTokenMail, outboxRows, smtpTestBed } from './helpers.js';
import { SMTP_PASSWORD, SMTP_USER } from './smtp-receiver.js';

/**
 * SMTP_URL's credentials only travel over TLS (README "Mail"): a real SMTP server that offers
 * AUTH but no STARTTLS (as one whose STARTTLS a man in the middle stripped) gets no AUTH and no
 * mail, unless SMTP_ALLOW_PLAINTEXT_AUTH names it a trusted relay.
 */

const FROM = 'Offerdesk <mail@desk.example.com>';
const bed = smtpTestBed({ auth: true });
const credentialsUrl = () => `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${bed.smtp.port}`;

function deps(allowPlaintextAuth: boolean | undefined): MailDispatchDeps {
  const mail = loadMailConfig({ SMTP_URL: credentialsUrl(), ...(allowPlaintextAuth === undefined ? {} : { SMTP_ALLOW_PLAINTEXT_AUTH: String(allowPlaintextAuth) }) }, 'postgres://db', '0.0.0.0');
  return { sql: bed.db.sql, clock: bed.clock, logger: bed.log.logger, transport: createSmtpTransport({ ...mail, from: FROM }), messageIdDomain: 'desk.example.com' };
}

describe('SMTP credentials and TLS', () => {
  it('sends no AUTH and no mail to a server without STARTTLS, and records why', async () => {
    await enqueueTokenMail(bed.db.sql, 'odl_tls000000000000000000000000');
    expect(await sendDueMails(deps(undefined))).toEqual(['retry']);
    expect(bed.smtp.logins).toEqual([]);
    expect(bed.smtp.received).toHaveLength(0);
    const [row] = await outboxRows(bed.db.sql);
    expect(row!.status).toBe('pending');
    expect(row!.last_error).toMatch(/^no TLS with the SMTP server, so the credentials of SMTP_URL were not sent \(SMTP_ALLOW_PLAINTEXT_AUTH/);
    expect(bed.log.lines.join('')).not.toContain(SMTP_PASSWORD);
  });

  it('logs in and sends over plain SMTP when SMTP_ALLOW_PLAINTEXT_AUTH is true', async () => {
    await enqueueTokenMail(bed.db.sql, 'odl_plain0000000000000000000000');
    expect(await sendDueMails(deps(true))).toEqual(['sent']);
    expect(bed.smtp.logins).toEqual([SMTP_USER]);
    expect(bed.smtp.received).toHaveLength(1);
  });

  it('reads SMTP_ALLOW_PLAINTEXT_AUTH as a boolean, false unless set', () => {
    expect(loadMailConfig({ SMTP_URL: credentialsUrl() }, undefined, '127.0.0.1').allowPlaintextAuth).toBe(false);
    expect(loadMailConfig({ SMTP_URL: credentialsUrl(), SMTP_ALLOW_PLAINTEXT_AUTH: 'true' }, undefined, '127.0.0.1').allowPlaintextAuth).toBe(true);
    expect(() => loadMailConfig({ SMTP_URL: credentialsUrl(), SMTP_ALLOW_PLAINTEXT_AUTH: 'maybe' }, undefined, '127.0.0.1')).toThrow(ConfigError);
  });
});
