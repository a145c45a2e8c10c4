import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HOUR, ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createSmtpTransport, type MailOutcome } from '../../src/mail/transport.js';
import { startWorker, type RunningWorker } from '../../src/host/worker.js';
import { addEndpoint } from '../../src/webhooks/management/endpoints.js';
import { loadMasterKeys } from '../../src/sealing/master-keys.js';
import { OFFER_WEBHOOK_TYPES } from '../../src/domain/outbox.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/until.js';
import { FAIL, fakeSender, MASTER_KEY, memberOf, sentOffer, workspace } from '../webhooks/engine/helpers.js';
import { capturedLogger, enqueueTokenMail, outboxRows } from './helpers.js';
import { startSilentServer, startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';

/**
 * The running worker (startWorker, as `serve` and `offerdesk worker` run it) on the controlled
 * clock: endpoint notices go out over a real SMTP socket, and a hung SMTP server holds up neither
 * webhook deliveries nor the worker's stop.
 */

const TOKEN = 'odl_Wq8Zk3Lp5Tn7Yc2Vb9Xm4Rj6Hd1Gf0Sa';
let db: TestDatabase;
let smtp: SmtpReceiver;
let worker: RunningWorker | undefined;

beforeAll(async () => {
  db = await freshDatabase();
  smtp = await startSmtpReceiver();
});
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await db?.drop();
});
beforeEach(async () => {
  await worker?.stop();
  worker = undefined;
  await db.sql`truncate accounts, workspaces, worker_jobs, mail_outbox restart identity cascade`;
  smtp.received.length = 0;
});

function env(smtpUrl: string) {
  return loadConfig({
    DATABASE_URL: db.url,
    OFFERDESK_MASTER_KEY: MASTER_KEY,
    OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.test=127.0.0.1:8443',
    OFFERDESK_PUBLIC_URL: 'https://desk.example.com',
    SMTP_URL: smtpUrl,
    MAIL_FROM: 'Offerdesk <mail@desk.example.com>',
  });
}

describe('mail sent by the running worker', () => {
  it('mails the 3rd final failure and the pause to owners and admins over SMTP, with no token in the log', async () => {
    const config = env(smtp.url);
    const clock = new ManualClock('2026-01-15T10:00:00.000Z');
    const sender = fakeSender();
    sender.reply(() => FAIL);
    const log = capturedLogger();
    const outcomes: MailOutcome[] = [];
    const f = { sql: db.sql, clock };
    const ws = await workspace(f);
    const admin = await memberOf(f, ws.workspaceId, 'admin');
    await memberOf(f, ws.workspaceId, 'member');
    const [owner] = await db.sql`select email from accounts where id = ${ws.ownerId}::uuid`;
    const [adminRow] = await db.sql`select email from accounts where id = ${admin}::uuid`;
    const manage = { sql: db.sql, clock, config: config.webhooks, masterKey: Buffer.from(MASTER_KEY, 'base64') };
    await addEndpoint(manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/webhooks', events: [...OFFER_WEBHOOK_TYPES], actorId: ws.ownerId });
    for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    // A sign-in mail with a token goes through the same worker; its token must stay out of the log.
    await enqueueTokenMail(db.sql, TOKEN);

    worker = await startWorker({
      sql: db.sql,
      config,
      clock,
      logger: log.logger,
      sender,
      masterKeys: loadMasterKeys(config),
      recordMailOutcome: (o) => outcomes.push(o),
    });
    const paused = () => smtp.received.filter((m) => m.parsed.subject?.startsWith('Webhook endpoint paused')).length === 2;
    await until(
      async () => {
        if (paused()) return true;
        clock.advance(1 * HOUR);
        return false;
      },
      15_000,
      'the pause notices',
      100,
    );

    const bySubject = (start: string) =>
      smtp.received.filter((m) => m.parsed.subject?.startsWith(start)).flatMap((m) => m.envelopeTo).sort();
    const told = [owner!.email, adminRow!.email].sort();
    expect(bySubject('Webhook endpoint close to pause')).toEqual(told);
    expect(bySubject('Webhook endpoint paused')).toEqual(told);
    const pausedMail = smtp.received.find((m) => m.parsed.subject?.startsWith('Webhook endpoint paused'))!;
    expect(pausedMail.parsed.text).toContain(`https://desk.example.com/console/w/${ws.workspaceId}/endpoints#endpoint-`);
    expect(pausedMail.parsed.html).toContain('Resume the endpoint</a>');
    expect(pausedMail.parsed.messageId).toMatch(/^<[0-9a-f-]{36}@desk\.example\.com>$/);
    expect(smtp.received.filter((m) => m.parsed.text?.includes(TOKEN))).toHaveLength(1);
    expect(outcomes.every((o) => o === 'sent')).toBe(true);
    for (const line of log.lines) expect(line).not.toContain(TOKEN);
  });

  it('a hung SMTP server holds up no webhook delivery, and its mail is kept for a later try', async () => {
    const silent = await startSilentServer();
    try {
      const config = env(silent.url);
      const clock = new ManualClock('2026-01-15T10:00:00.000Z');
      const sender = fakeSender();
      const f = { sql: db.sql, clock };
      const ws = await workspace(f);
      const manage = { sql: db.sql, clock, config: config.webhooks, masterKey: Buffer.from(MASTER_KEY, 'base64') };
      await addEndpoint(manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/webhooks', events: [...OFFER_WEBHOOK_TYPES], actorId: ws.ownerId });
      await enqueueTokenMail(db.sql, TOKEN);

      // Long enough that the deliveries below happen while the mail's SMTP conversation is open.
      const limits = { connectionTimeoutMs: 8_000, greetingTimeoutMs: 8_000, socketTimeoutMs: 8_000, sendDeadlineMs: 10_000 };
      worker = await startWorker({
        sql: db.sql,
        config,
        clock,
        logger: capturedLogger().logger,
        sender,
        masterKeys: loadMasterKeys(config),
        mailTransport: createSmtpTransport(config.mail, limits),
      });
      await until(() => silent.connections() > 0, 5_000, 'the mail loop connecting to the hung server', 20);
      for (let i = 0; i < 3; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
      await until(() => sender.sent.length === 3, 7_000, 'three webhook deliveries while the SMTP server hangs', 20);
      // Delivered while the mail's SMTP conversation still waits for a greeting: its try has no outcome yet.
      const [waiting] = await outboxRows(db.sql);
      expect(waiting).toMatchObject({ status: 'pending', attempts: 1, last_error: null });

      await worker.stop();
      worker = undefined;
      const [kept] = await outboxRows(db.sql);
      expect(kept).toMatchObject({ status: 'pending', attempts: 1 });
      expect(kept!.last_error).toMatch(/greeting|timeout|timed out/i);
    } finally {
      await silent.close();
    }
  }, 60_000);
});
