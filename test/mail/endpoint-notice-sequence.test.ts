import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HOUR, MINUTE, ManualClock } from '../../src/clock.js';
import { sendDueMails, type MailDispatchDeps } from '../../src/mail/dispatch.js';
import { createSmtpTransport } from '../../src/mail/transport.js';
import { OFFER_WEBHOOK_TYPES } from '../../src/domain/outbox.js';
import { addEndpoint, resumeEndpoint, testEndpoint } from '../../src/webhooks/management/endpoints.js';
import { memberOf, sentOffer, workspace } from '../webhooks/engine/helpers.js';
import { useRealDelivery } from '../webhooks/engine/real-delivery.js';
import { capturedLogger } from './helpers.js';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';

/**
 * The sequence of endpoint health notices as owners and admins receive it (README "Endpoint
 * health notices"): the engine with the project's HTTPS sender against a real receiver, real
 * PostgreSQL, the mail sender over SMTP to a real server, all on the controlled clock. The mail
 * sender runs between the engine's rounds, as the worker's mail loop does, unless a test holds
 * the mails back.
 */

const START = new Date(Math.floor(Date.now() / HOUR) * HOUR);
const clock = new ManualClock(START);
const h = useRealDelivery(clock);
let smtp: SmtpReceiver;
let mail: MailDispatchDeps;

const SUBJECT = {
  failing: 'Webhook endpoint failing: https://hooks.test/webhooks',
  failures3: 'Webhook endpoint close to pause: https://hooks.test/webhooks',
  paused: 'Webhook endpoint paused: https://hooks.test/webhooks',
  recovered: 'Webhook endpoint recovered: https://hooks.test/webhooks',
};

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  mail = {
    sql: h.db.sql,
    clock,
    logger: capturedLogger().logger,
    transport: createSmtpTransport({ smtpUrl: smtp.url, from: 'Offerdesk <mail@desk.example.com>' }),
    messageIdDomain: 'desk.example.com',
  };
});
afterAll(async () => {
  mail?.transport.close();
  await smtp?.close();
});
beforeEach(async () => {
  await h.db.sql`truncate accounts, workspaces, worker_jobs restart identity cascade`;
  clock.set(START);
  smtp.received.length = 0;
  h.receiver.reply(() => ({ status: 200, body: 'ok' }));
});

const failing = () => h.receiver.reply(() => ({ status: 500, body: 'down' }));
const answering = () => h.receiver.reply(() => ({ status: 200, body: 'ok' }));

/** Subjects received by `to`, in the order the SMTP server took them. */
const inbox = (to: string) => smtp.received.filter((m) => m.envelopeTo.includes(to)).map((m) => m.parsed.subject);

/** Runs the mail sender until nothing is due; returns the subjects each of its rounds sent. */
async function sendMails(): Promise<string[][]> {
  const rounds: string[][] = [];
  for (;;) {
    const before = smtp.received.length;
    if ((await sendDueMails(mail)).length === 0) return rounds;
    rounds.push(smtp.received.slice(before).map((m) => m.parsed.subject ?? '').sort());
  }
}

/**
 * Attempts everything due, runs the due periodic jobs (the health job among them) and, unless
 * `holdMail`, the mail sender; then moves the clock to the next due attempt, at most `step` on.
 */
async function runFor(ms: number, options: { step?: number; holdMail?: boolean } = {}): Promise<void> {
  const step = options.step ?? MINUTE;
  const end = clock.now().getTime() + ms;
  const round = async () => {
    await h.engine.fanOut();
    while ((await h.engine.dispatchOnce()).length > 0);
    await h.engine.runDueJobs();
    if (!options.holdMail) await sendMails();
  };
  while (clock.now().getTime() < end) {
    await round();
    const [row] = await h.db.sql<{ due: Date | null }[]>`select min(next_attempt_at) as due from webhook_deliveries where status = 'pending'`;
    const due = row?.due ? Math.max(row.due.getTime(), clock.now().getTime() + 1) : Infinity;
    clock.set(new Date(Math.min(end, clock.now().getTime() + step, due)));
  }
  await round();
}

/** An endpoint whose receiver answers 500, in a workspace with an owner and an admin. */
async function failingEndpoint() {
  const ws = await workspace({ sql: h.db.sql, clock });
  const admin = await memberOf({ sql: h.db.sql, clock }, ws.workspaceId, 'admin');
  const [owner] = await h.db.sql<{ email: string }[]>`select email from accounts where id = ${ws.ownerId}::uuid`;
  const [adminRow] = await h.db.sql<{ email: string }[]>`select email from accounts where id = ${admin}::uuid`;
  const ep = await addEndpoint(h.manage, {
    workspaceId: ws.workspaceId,
    url: 'https://hooks.test/webhooks',
    events: [...OFFER_WEBHOOK_TYPES],
    actorId: ws.ownerId,
  });
  failing();
  return { ws, ep, told: [owner!.email, adminRow!.email] };
}

/** Five events failing at once: their final failures, 3rd and 5th in a row among them, come in one round. */
async function pausedByBurst(options: { holdMail?: boolean } = {}) {
  const fx = await failingEndpoint();
  for (let i = 0; i < 5; i++) await sentOffer({ sql: h.db.sql, clock }, fx.ws.workspaceId, `Offer ${i}`);
  await runFor(24 * HOUR, { step: HOUR, ...options });
  const [row] = await h.db.sql<{ state: string; health_state: string }[]>`select state, health_state from webhook_endpoints where id = ${fx.ep.id}::uuid`;
  expect(row).toEqual({ state: 'paused', health_state: 'paused' });
  return fx;
}

async function healthOf(endpointId: string) {
  const [row] = await h.db.sql<{ health_state: string }[]>`select health_state from webhook_endpoints where id = ${endpointId}::uuid`;
  return row!.health_state;
}

describe('endpoint health notices in sequence', () => {
  it('a burst of final failures that pauses the endpoint mails the pause without the warning of it', async () => {
    const { told } = await pausedByBurst();
    for (const to of told) expect(inbox(to)).toEqual([SUBJECT.failing, SUBJECT.paused]);

    const audit = await h.db.sql<{ details: { notice: string; superseded?: number } }[]>`
      select details from audit_entries where action = 'endpoint.notice_sent'
       order by array_position(array['endpoint_failing', 'endpoint_failures_3', 'endpoint_paused'], details->>'notice')`;
    expect(audit.map((a) => [a.details.notice, a.details.superseded ?? 0])).toEqual([
      ['endpoint_failing', 0],
      ['endpoint_failures_3', 0],
      ['endpoint_paused', told.length],
    ]);
  });

  it('the warning of the pause is mailed when the pause comes rounds later', async () => {
    const { ws, told } = await failingEndpoint();
    // Events an hour apart fail finally an hour apart: the 3rd in a row well before the 5th.
    for (let i = 0; i < 5; i++) {
      await sentOffer({ sql: h.db.sql, clock }, ws.workspaceId, `Offer ${i}`);
      await runFor(HOUR, { step: HOUR });
    }
    await runFor(24 * HOUR, { step: HOUR });
    for (const to of told) expect(inbox(to)).toEqual([SUBJECT.failing, SUBJECT.failures3, SUBJECT.paused]);
  });

  it('notices held back leave in the order of the changes of state, each after the one before it', async () => {
    const { ws, ep, told } = await pausedByBurst({ holdMail: true });
    await resumeEndpoint(h.manage, { endpointId: ep.id, actorId: ws.ownerId });
    answering();
    await sentOffer({ sql: h.db.sql, clock }, ws.workspaceId, 'Delivered');
    await runFor(5 * MINUTE, { holdMail: true });
    expect(await healthOf(ep.id)).toBe('healthy');

    const each = (subject: string) => told.map(() => subject);
    expect(await sendMails()).toEqual([each(SUBJECT.failing), each(SUBJECT.paused), each(SUBJECT.recovered)]);
  });

  it('a test ping answered while the endpoint is paused tells no recovery and leaves it paused', async () => {
    const { ws, ep, told } = await pausedByBurst();
    answering();
    await testEndpoint(h.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await runFor(10 * MINUTE);

    expect(h.receiver.requests.at(-1)!.body.toString()).toContain('"type":"ping"');
    for (const to of told) expect(inbox(to)).toEqual([SUBJECT.failing, SUBJECT.paused]);
    expect(await healthOf(ep.id)).toBe('paused');
    const [recovered] = await h.db.sql<{ n: number }[]>`
      select count(*)::int as n from audit_entries where action = 'endpoint.notice_sent' and details->>'notice' = 'endpoint_recovered'`;
    expect(recovered!.n).toBe(0);
  });

  it('after a resume the first delivery that succeeds tells the recovery, though a ping succeeded while paused', async () => {
    const { ws, ep, told } = await pausedByBurst();
    answering();
    await testEndpoint(h.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await runFor(10 * MINUTE);
    await resumeEndpoint(h.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await runFor(10 * MINUTE);
    for (const to of told) expect(inbox(to)).toEqual([SUBJECT.failing, SUBJECT.paused]);

    await sentOffer({ sql: h.db.sql, clock }, ws.workspaceId, 'Delivered');
    await runFor(5 * MINUTE);
    for (const to of told) expect(inbox(to)).toEqual([SUBJECT.failing, SUBJECT.paused, SUBJECT.recovered]);
    expect(await healthOf(ep.id)).toBe('healthy');
  });

  it('test pings failing for hours on an active endpoint tell nothing and leave it healthy', async () => {
    const { ws, ep } = await failingEndpoint();
    await testEndpoint(h.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await runFor(3 * HOUR, { step: 10 * MINUTE });

    const [attempts] = await h.db.sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts where not succeeded`;
    expect(attempts!.n).toBeGreaterThanOrEqual(4);
    expect(smtp.received).toEqual([]);
    expect(await healthOf(ep.id)).toBe('healthy');
  });
});
