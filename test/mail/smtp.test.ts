import { beforeEach, describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE } from '../../src/clock.js';
import { mailMessageId, sendDueMails, type MailDispatchDeps } from '../../src/mail/dispatch.js';
import { createSmtpTransport, type MailOutcome } from '../../src/mail/transport.js';
import { enqueueTokenMail, outboxRows, smtpTestBed } from './helpers.js';

/**
 * Sending through a real SMTP server over a socket (npm smtp-server), read back with mailparser:
 * what arrives, retries after an outage, a permanent refusal, and no token in any log line.
 */

const FROM = 'Offerdesk <mail@desk.example.com>';
const TOKEN = 'odl_7GQmX2pYt9Rk4sWb8NcL1vHeZ3aJ';
const bed = smtpTestBed();
let outcomes: MailOutcome[];
let deps: MailDispatchDeps;

beforeEach(() => {
  outcomes = [];
  deps = {
    sql: bed.db.sql,
    clock: bed.clock,
    logger: bed.log.logger,
    transport: createSmtpTransport({ smtpUrl: bed.smtp.url, from: FROM }),
    messageIdDomain: 'desk.example.com',
    recordMailOutcome: (outcome) => outcomes.push(outcome),
  };
});

describe('sending mail through SMTP', () => {
  it('delivers the mail with its recipient, subject, both bodies and a Message-ID of its outbox row', async () => {
    const draft = await enqueueTokenMail(bed.db.sql, TOKEN);
    const [row] = await outboxRows(bed.db.sql);

    expect(await sendDueMails(deps)).toEqual(['sent']);

    expect(bed.smtp.received).toHaveLength(1);
    const { envelopeTo, parsed } = bed.smtp.received[0]!;
    expect(envelopeTo).toEqual([draft.to]);
    expect(parsed.from?.value).toEqual([{ address: 'mail@desk.example.com', name: 'Offerdesk' }]);
    expect(parsed.subject).toBe('Your sign-in link');
    expect(parsed.text).toContain(`token=${TOKEN}`);
    expect(parsed.html).toContain(`token=${TOKEN}`);
    expect(parsed.messageId).toBe(mailMessageId(row!.id, 'desk.example.com'));
    expect(outcomes).toEqual(['sent']);
  });

  it('erases the subject and bodies of a sent mail, so the token does not stay at rest', async () => {
    await enqueueTokenMail(bed.db.sql, TOKEN);
    await sendDueMails(deps);
    const [row] = await bed.db.sql`select * from mail_outbox`;
    expect(row).toMatchObject({ status: 'sent', subject: null, text_body: null, html_body: null, attempts: 1 });
    expect(JSON.stringify(row)).not.toContain(TOKEN);
  });

  it('keeps every mail through an SMTP outage and sends each exactly once when the server is back', async () => {
    await bed.smtp.down();
    const drafts = [];
    for (let i = 0; i < 6; i++) drafts.push(await enqueueTokenMail(bed.db.sql, `${TOKEN}${i}`));

    expect(await sendDueMails(deps)).toEqual(['retry', 'retry', 'retry', 'retry']);
    expect(await sendDueMails(deps)).toEqual(['retry', 'retry']);
    // Nothing is due before its pause (1 minute after the first failure).
    expect(await sendDueMails(deps)).toEqual([]);
    bed.clock.advance(1 * MINUTE);
    expect(await sendDueMails(deps)).toEqual(['retry', 'retry', 'retry', 'retry']);
    expect(await sendDueMails(deps)).toEqual(['retry', 'retry']);
    const rows = await outboxRows(bed.db.sql);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(Array(6).fill(['pending', 2]));
    expect(rows[0]!.last_error).toMatch(/ECONNREFUSED|connect/i);

    await bed.smtp.up();
    bed.clock.advance(5 * MINUTE);
    while ((await sendDueMails(deps)).length > 0);
    expect(bed.smtp.received.map((m) => m.envelopeTo[0]).sort()).toEqual(drafts.map((d) => d.to).sort());
    const ids = bed.smtp.received.map((m) => m.parsed.messageId);
    expect(new Set(ids).size).toBe(6);
    expect((await outboxRows(bed.db.sql)).every((r) => r.status === 'sent')).toBe(true);
    // Sent mails are not sent again.
    bed.clock.advance(1 * DAY);
    expect(await sendDueMails(deps)).toEqual([]);
    expect(bed.smtp.received).toHaveLength(6);
  });

  it('sends a mail answered 451 again later under the same Message-ID', async () => {
    await enqueueTokenMail(bed.db.sql, TOKEN);
    bed.smtp.deferNextData = 1;
    expect(await sendDueMails(deps)).toEqual(['retry']);
    expect(bed.smtp.received).toHaveLength(0);
    const [waiting] = await outboxRows(bed.db.sql);
    expect(waiting!.last_error).toContain('451');
    expect(waiting!.next_attempt_at).toEqual(new Date(bed.clock.now().getTime() + MINUTE));

    bed.clock.advance(MINUTE);
    expect(await sendDueMails(deps)).toEqual(['sent']);
    expect(bed.smtp.deferred[0]!.parsed.messageId).toBe(mailMessageId(waiting!.id, 'desk.example.com'));
    expect(bed.smtp.received[0]!.parsed.messageId).toBe(bed.smtp.deferred[0]!.parsed.messageId);
    expect(outcomes).toEqual(['retry', 'sent']);
  });

  it('records a permanent refusal (550) and never tries that mail again', async () => {
    const refused = await enqueueTokenMail(bed.db.sql, TOKEN, 'gone@agency.test');
    bed.smtp.refuse.add(refused.to);
    expect(await sendDueMails(deps)).toEqual(['refused']);

    const [row] = await bed.db.sql`select status, last_error, subject, text_body, html_body, attempts from mail_outbox`;
    expect(row).toMatchObject({ status: 'refused', subject: null, text_body: null, html_body: null, attempts: 1 });
    expect(row!.last_error).toContain('550');
    bed.clock.advance(7 * DAY);
    expect(await sendDueMails(deps)).toEqual([]);
    expect(bed.smtp.received).toHaveLength(0);
    expect(outcomes).toEqual(['refused']);
  });

  it('gives a mail up as refused after three days of temporary failures', async () => {
    await bed.smtp.down();
    try {
      await enqueueTokenMail(bed.db.sql, TOKEN);
      let tries = 0;
      for (let hours = 0; hours < 80; hours++) {
        tries += (await sendDueMails(deps)).length;
        bed.clock.advance(1 * HOUR);
      }
      const [row] = await bed.db.sql`select status, last_error from mail_outbox`;
      expect(row!.status).toBe('refused');
      expect(row!.last_error).toMatch(/^gave up after 72 hours/);
      expect(outcomes.at(-1)).toBe('refused');
      expect(outcomes.filter((o) => o === 'retry')).toHaveLength(tries - 1);
    } finally {
      await bed.smtp.up();
    }
  });

  it('writes no token, subject or body into any log line: sent, retried and refused alike', async () => {
    await enqueueTokenMail(bed.db.sql, TOKEN);
    const refused = await enqueueTokenMail(bed.db.sql, `${TOKEN}x`, 'gone@agency.test');
    bed.smtp.refuse.add(refused.to);
    bed.smtp.deferNextData = 1;
    await sendDueMails(deps);
    bed.clock.advance(MINUTE);
    await sendDueMails(deps);
    expect(outcomes.sort()).toEqual(['refused', 'retry', 'sent']);

    expect(bed.log.lines.length).toBeGreaterThanOrEqual(3);
    for (const line of bed.log.lines) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain('sign-in link');
      expect(line).not.toContain('within 15 minutes');
    }
  });
});
