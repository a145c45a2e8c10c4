import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../src/clock.js';
import { sendDueMails, type MailDispatchDeps } from '../../src/mail/dispatch.js';
import type { MailKind } from '../../src/mail/outbox.js';
import { createSmtpTransport } from '../../src/mail/transport.js';
import { resumeEndpoint } from '../../src/webhooks/management/endpoints.js';
import {
  FAIL,
  OK,
  advanceToNextDue,
  endpoint,
  manyEvents,
  memberOf,
  sentOffer,
  useEngineFixture,
  workspace,
  type EngineFixture,
} from '../webhooks/engine/helpers.js';
import { capturedLogger } from './helpers.js';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';

/**
 * Endpoint health notices on the controlled clock, driven through the engine's own steps (the
 * worker loops exactly these: fan-out, claim and attempt, periodic jobs): the early warning, 3 of
 * the 5 final failures, the pause, the recovery, who receives them, and no storm.
 */

const f = useEngineFixture({ concurrency: 64, startsPerMinutePerWorkspace: 10_000 });
let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
});
afterAll(async () => {
  await smtp?.close();
});

interface Notice {
  kind: MailKind;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
}

/**
 * The notices written, in the order of the states (final failures of one round commit in parallel
 * transactions, so the outbox's created_at, each transaction's start, does not order them).
 */
async function notices(): Promise<Notice[]> {
  return f.sql<Notice[]>`
    select kind, recipient, subject, text_body, html_body from mail_outbox
     order by array_position(array['endpoint_failing', 'endpoint_failures_3', 'endpoint_paused', 'endpoint_recovered'], kind), recipient`;
}

const kinds = async () => (await notices()).map((n) => n.kind);

/**
 * Attempts everything due, runs the due periodic jobs and, given `mail`, sends the due mails (as
 * the worker's mail loop does between rounds), then moves the clock to the next due attempt (at
 * most `step`).
 */
async function runFor(fx: EngineFixture, ms: number, step = 10 * MINUTE, mail?: MailDispatchDeps): Promise<void> {
  const end = fx.clock.now().getTime() + ms;
  await fx.engine.fanOut();
  while (fx.clock.now().getTime() < end) {
    while ((await fx.engine.dispatchOnce()).length > 0);
    await fx.engine.runDueJobs();
    if (mail) while ((await sendDueMails(mail)).length > 0);
    const [row] = await fx.sql<{ due: Date | null }[]>`select min(next_attempt_at) as due from webhook_deliveries where status = 'pending'`;
    const next = Math.min(end, fx.clock.now().getTime() + step, row?.due ? Math.max(row.due.getTime(), fx.clock.now().getTime() + 1) : Infinity);
    fx.clock.set(new Date(next));
  }
  while ((await fx.engine.dispatchOnce()).length > 0);
  await fx.engine.runDueJobs();
}

async function failingEndpoint() {
  const ws = await workspace(f);
  const admin = await memberOf(f, ws.workspaceId, 'admin');
  const member = await memberOf(f, ws.workspaceId, 'member');
  const quietAdmin = await memberOf(f, ws.workspaceId, 'admin');
  await f.sql`update memberships set endpoint_notices = false where account_id = ${quietAdmin}::uuid`;
  const emails = async (ids: string[]) =>
    (await f.sql<{ email: string }[]>`select email from accounts where id in ${f.sql(ids)} order by email`).map((r) => r.email);
  const ep = await endpoint(f, ws);
  f.sender.reply(() => FAIL);
  return { ws, ep, told: await emails([ws.ownerId, admin]), untold: await emails([member, quietAdmin]) };
}

describe('endpoint health notices', () => {
  it('warns owners and admins once no attempt succeeded for an hour while several failed, not before', async () => {
    const { told, untold } = await failingEndpoint();
    await sentOffer(f, (await f.sql`select id from workspaces`)[0]!.id);
    await runFor(f, 59 * MINUTE, MINUTE);
    expect(await kinds()).toEqual([]);

    await runFor(f, 2 * MINUTE, MINUTE);
    const mails = await notices();
    expect(mails.map((m) => [m.kind, m.recipient])).toEqual(told.map((to) => ['endpoint_failing', to]));
    expect(mails.some((m) => untold.includes(m.recipient))).toBe(false);
    expect(mails[0]!.subject).toBe('Webhook endpoint failing: https://hooks.test/webhooks');
    expect(mails[0]!.text_body).toContain('failing since 2026-01-15 10:00 UTC');
    expect(mails[0]!.text_body).toContain('HTTP 500');
  });

  it('tells the pause with what it cancelled and a link to resume, in place of the unsent warning of it', async () => {
    const { ws, ep, told } = await failingEndpoint();
    for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    await f.engine.fanOut();
    f.clock.advance(HOUR);
    await sentOffer(f, ws.workspaceId, 'Still open at the pause');
    await runFor(f, 40 * HOUR, HOUR);

    // The 5 deliveries fail finally in one round: "close to pause" was not sent yet when the pause
    // came, so the pause took it back.
    expect(await kinds()).toEqual([...told.map(() => 'endpoint_failing'), ...told.map(() => 'endpoint_paused')]);
    const paused = (await notices()).find((n) => n.kind === 'endpoint_paused')!;
    expect(paused.subject).toBe('Webhook endpoint paused: https://hooks.test/webhooks');
    expect(paused.text_body).toContain('1 open delivery was cancelled');
    expect(paused.text_body).toContain(`Resume the endpoint: http://localhost:8080/console/w/${ws.workspaceId}/endpoints#endpoint-${ep.id}`);
    expect(paused.text_body).toMatch(/Last errors:\n- 2026-01-1\d \d\d:\d\d UTC: HTTP 500/);
    expect(paused.html_body).toContain('<a href="http://localhost:8080/console/account">Switch these notices off</a>');

    const audit = await f.sql<{ action: string; details: { notice: string; recipients: number; superseded?: number } }[]>`
      select action, details from audit_entries where action = 'endpoint.notice_sent'
       order by array_position(array['endpoint_failing', 'endpoint_failures_3', 'endpoint_paused'], details->>'notice')`;
    expect(audit.map((a) => [a.details.notice, a.details.recipients, a.details.superseded])).toEqual([
      ['endpoint_failing', 2, undefined],
      ['endpoint_failures_3', 2, undefined],
      ['endpoint_paused', 2, 2],
    ]);
    const [state] = await f.sql`select health_state, failing_since from webhook_endpoints where id = ${ep.id}::uuid`;
    const [first] = await f.sql`select min(attempted_at) as at from webhook_attempts where endpoint_id = ${ep.id}::uuid`;
    expect(state).toEqual({ health_state: 'paused', failing_since: first!.at });
  });

  it('tells the recovery once a delivery succeeds after a notice, and a later run of failures from the start', async () => {
    const { ws, ep, told } = await failingEndpoint();
    for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    await runFor(f, 40 * HOUR, HOUR);
    expect((await kinds()).at(-1)).toBe('endpoint_paused');
    await f.sql`truncate mail_outbox`;

    await resumeEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    // Resumed but not yet delivering: no recovery.
    await runFor(f, 5 * MINUTE, MINUTE);
    expect(await kinds()).toEqual([]);

    f.sender.reply(() => OK);
    await sentOffer(f, ws.workspaceId, 'Delivered');
    await runFor(f, 5 * MINUTE, MINUTE);
    const mails = await notices();
    expect(mails.map((m) => [m.kind, m.recipient])).toEqual(told.map((to) => ['endpoint_recovered', to]));
    expect(mails[0]!.subject).toBe('Webhook endpoint recovered: https://hooks.test/webhooks');
    const [state] = await f.sql`select health_state, failing_since from webhook_endpoints where id = ${ep.id}::uuid`;
    expect(state).toEqual({ health_state: 'healthy', failing_since: null });

    // Healthy again: a later run of failures is told from the start.
    await f.sql`truncate mail_outbox`;
    f.sender.reply(() => FAIL);
    await sentOffer(f, ws.workspaceId, 'Failing again');
    await runFor(f, 2 * HOUR, MINUTE);
    expect(await kinds()).toEqual(told.map(() => 'endpoint_failing'));
  });

  it('every notice arrives over SMTP to each owner and admin who wants it, in plain text and HTML', async () => {
    const { ws, ep, told } = await failingEndpoint();
    smtp.received.length = 0;
    const deps = {
      sql: f.sql,
      clock: f.clock,
      logger: capturedLogger().logger,
      transport: createSmtpTransport({ smtpUrl: smtp.url, from: 'Offerdesk <mail@desk.example.com>' }),
      messageIdDomain: 'desk.example.com',
    };
    // Events an hour apart fail finally an hour apart, so "close to pause" leaves before the pause.
    for (let i = 0; i < 5; i++) {
      await sentOffer(f, ws.workspaceId, `Offer ${i}`);
      await runFor(f, HOUR, HOUR, deps);
    }
    await runFor(f, 40 * HOUR, HOUR, deps);
    await resumeEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    f.sender.reply(() => OK);
    await sentOffer(f, ws.workspaceId, 'Delivered');
    await runFor(f, 5 * MINUTE, MINUTE, deps);

    const subjects = {
      endpoint_failing: 'Webhook endpoint failing: https://hooks.test/webhooks',
      endpoint_failures_3: 'Webhook endpoint close to pause: https://hooks.test/webhooks',
      endpoint_paused: 'Webhook endpoint paused: https://hooks.test/webhooks',
      endpoint_recovered: 'Webhook endpoint recovered: https://hooks.test/webhooks',
    };
    for (const subject of Object.values(subjects)) {
      const mails = smtp.received.filter((m) => m.parsed.subject === subject);
      expect(mails.flatMap((m) => m.envelopeTo).sort(), subject).toEqual(told);
      for (const { parsed } of mails) {
        expect(parsed.text).toContain(`/console/w/${ws.workspaceId}/endpoints#endpoint-${ep.id}`);
        expect(parsed.html).toContain(`href="http://localhost:8080/console/w/${ws.workspaceId}/endpoints#endpoint-${ep.id}"`);
        expect(parsed.text).toContain('http://localhost:8080/console/account');
      }
    }
    expect(smtp.received).toHaveLength(4 * told.length);
  });

  it('no storm: 1,000 failing deliveries of one endpoint give one mail per notice and recipient', async () => {
    const { ws, told } = await failingEndpoint();
    await manyEvents(f, ws.workspaceId, 999);
    await runFor(f, 48 * HOUR, HOUR);

    const [counted] = await f.sql<{ attempts: number }[]>`select count(*)::int as attempts from webhook_attempts`;
    expect(counted!.attempts).toBeGreaterThan(1_000);
    const byKind = new Map<string, string[]>();
    for (const m of await notices()) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m.recipient]);
    // They fail finally in one round: the pause takes back the unsent "close to pause".
    expect(Object.fromEntries(byKind)).toEqual({ endpoint_failing: told, endpoint_paused: told });
  }, 180_000);
});
