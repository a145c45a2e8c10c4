import { beforeEach, describe, expect, it } from 'vitest';
import { DAY, MINUTE } from '../../src/clock.js';
import { sendDueMails, type MailDispatchDeps } from '../../src/mail/dispatch.js';
import { createSmtpTransport, type MailOutcome, type SmtpLimits } from '../../src/mail/transport.js';
import { until } from '../support/until.js';
import { enqueueTokenMail, outboxRows, smtpTestBed } from './helpers.js';

/**
 * A slow SMTP server against the limits of one conversation (README "Mail": 20 s of silence, 45 s
 * in all), scaled down to milliseconds: a conversation given up on is ended before its mail is
 * tried again, and a message sent to its final "." without a reply is never sent a second time.
 */

const FROM = 'Offerdesk <mail@desk.example.com>';
const bed = smtpTestBed();
let outcomes: MailOutcome[];

beforeEach(() => {
  outcomes = [];
});

function deps(limits: Partial<SmtpLimits>): MailDispatchDeps {
  return {
    sql: bed.db.sql,
    clock: bed.clock,
    logger: bed.log.logger,
    transport: createSmtpTransport(
      { smtpUrl: bed.smtp.url, from: FROM },
      { connectionTimeoutMs: 2000, greetingTimeoutMs: 2000, socketTimeoutMs: 2000, sendDeadlineMs: 2000, ...limits },
    ),
    messageIdDomain: 'desk.example.com',
    recordMailOutcome: (outcome) => outcomes.push(outcome),
  };
}

/** Every conversation so far has ended on the server's side, so none can still deliver a mail. */
async function conversationsOver(count: number): Promise<void> {
  await until(() => bed.smtp.closed >= count, 5000, `${count} SMTP conversations to end`);
}

describe('a slow SMTP server', () => {
  it('ends a conversation cut off by the send deadline, so its retry is the only copy received', async () => {
    // Each command answered after 300 ms: the deadline (450 ms) falls while RCPT TO waits.
    bed.smtp.delays = { mailFromMs: 300, rcptToMs: 300, dataEndMs: 0 };
    const slow = deps({ sendDeadlineMs: 450 });
    await enqueueTokenMail(bed.db.sql, 'odl_deadline0000000000000000000');

    expect(await sendDueMails(slow)).toEqual(['retry']);
    const [waiting] = await outboxRows(bed.db.sql);
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1 });
    expect(waiting!.last_error).toBe('no answer from the SMTP server within 450 ms');
    await conversationsOver(1);
    // Long enough for a conversation left running to have reached the end of DATA.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(bed.smtp.received).toHaveLength(0);

    bed.smtp.delays = { mailFromMs: 0, rcptToMs: 0, dataEndMs: 0 };
    bed.clock.advance(MINUTE);
    // The retry under a deadline no loaded machine reaches: this test is about the first conversation.
    expect(await sendDueMails(deps({ sendDeadlineMs: 10_000, socketTimeoutMs: 10_000 }))).toEqual(['sent']);
    await conversationsOver(2);
    expect(bed.smtp.received).toHaveLength(1);
    expect(outcomes).toEqual(['retry', 'sent']);
  });

  it('records a mail sent to its final dot but never answered as unconfirmed, and does not send it again', async () => {
    // The whole message arrives; the server's 250 would come after the deadline.
    bed.smtp.delays = { mailFromMs: 0, rcptToMs: 0, dataEndMs: 600 };
    const slow = deps({ sendDeadlineMs: 400 });
    await enqueueTokenMail(bed.db.sql, 'odl_unconfirmed00000000000000000');

    expect(await sendDueMails(slow)).toEqual(['unconfirmed']);
    const [row] = await bed.db.sql`select status, attempts, last_error, subject, text_body, html_body, next_attempt_at, finished_at from mail_outbox`;
    expect(row).toMatchObject({ status: 'unconfirmed', attempts: 1, subject: null, text_body: null, html_body: null, next_attempt_at: null });
    expect(row!.finished_at).toEqual(bed.clock.now());
    expect(row!.last_error).toBe('no reply after the whole message was sent: no answer from the SMTP server within 400 ms');
    expect(bed.log.lines.some((line) => line.includes('"level":50') && line.includes('not sent again'))).toBe(true);

    bed.smtp.delays = { mailFromMs: 0, rcptToMs: 0, dataEndMs: 0 };
    for (const step of [MINUTE, 5 * MINUTE, DAY]) {
      bed.clock.advance(step);
      expect(await sendDueMails(slow)).toEqual([]);
    }
    await until(() => bed.smtp.received.length > 0, 5000, 'the server to take the message');
    await conversationsOver(1);
    expect(bed.smtp.received).toHaveLength(1);
    expect(outcomes).toEqual(['unconfirmed']);
  });

  it('records a mail as unconfirmed when the socket falls silent after its final dot', async () => {
    bed.smtp.delays = { mailFromMs: 0, rcptToMs: 0, dataEndMs: 600 };
    const silentAfterData = deps({ socketTimeoutMs: 300, sendDeadlineMs: 5000 });
    await enqueueTokenMail(bed.db.sql, 'odl_sockettimeout000000000000000');

    expect(await sendDueMails(silentAfterData)).toEqual(['unconfirmed']);
    const [row] = await outboxRows(bed.db.sql);
    expect(row!.status).toBe('unconfirmed');
    expect(row!.last_error).toMatch(/^no reply after the whole message was sent: .*timeout/i);
    bed.clock.advance(DAY);
    expect(await sendDueMails(silentAfterData)).toEqual([]);
    await until(() => bed.smtp.received.length > 0, 5000, 'the server to take the message');
    expect(bed.smtp.received).toHaveLength(1);
  });

  it('still retries a mail whose conversation timed out before the end of the message', async () => {
    bed.smtp.delays = { mailFromMs: 0, rcptToMs: 600, dataEndMs: 0 };
    const silentAtRcpt = deps({ socketTimeoutMs: 300, sendDeadlineMs: 5000 });
    await enqueueTokenMail(bed.db.sql, 'odl_rcpttimeout00000000000000000');
    expect(await sendDueMails(silentAtRcpt)).toEqual(['retry']);
    expect((await outboxRows(bed.db.sql))[0]).toMatchObject({ status: 'pending' });
  });
});
