import { describe, expect, it } from 'vitest';
import { DAY, MINUTE } from '../../../src/clock.js';
import { DomainError } from '../../../src/domain/errors.js';
import { listDeliveryLogPage, showDeliveryLogEntry, type LogQuery } from '../../../src/webhooks/management/delivery-log.js';
import { FAIL, OK, deliverDue, endpoint, sentOffer, useEngineFixture, workspace } from './helpers.js';
import { logDeps, walkLog } from './log-helpers.js';

const f = useEngineFixture();

/**
 * A workspace with two endpoints (one answering 500) and offers sent a day apart, delivered
 * through the real engine; a second workspace alongside. Returns what the filters refer to.
 */
async function busyWorkspace() {
  const ws = await workspace(f);
  const good = await endpoint(f, ws, { url: 'https://hooks.test/good', events: ['offer.sent', 'offer.withdrawn'] });
  const bad = await endpoint(f, ws, { url: 'https://other.test/bad' });
  f.sender.reply((request) => (request.url.includes('/bad') ? FAIL : OK));
  const offers: string[] = [];
  for (let i = 0; i < 7; i++) {
    offers.push(await sentOffer(f, ws.workspaceId, `Offer ${i}`));
    await deliverDue(f);
    f.clock.advance(DAY);
  }
  const other = await workspace(f);
  await endpoint(f, other);
  await sentOffer(f, other.workspaceId);
  await deliverDue(f);
  return { ws, good, bad, offers, other };
}

/** The log as plain SQL says it should be, newest first: the reference for every filter. */
async function expected(workspaceId: string, where: (d: { status: string; endpoint_id: string; type: string; created_at: Date; message_id: string; offer_id: string | null }) => boolean) {
  const rows = await f.sql<{ id: string; status: string; endpoint_id: string; type: string; created_at: Date; message_id: string; offer_id: string | null }[]>`
    select d.id, d.status, d.endpoint_id, m.type, d.created_at, d.message_id, m.offer_id
      from webhook_deliveries d join webhook_messages m on m.id = d.message_id
     where d.workspace_id = ${workspaceId}::uuid
     order by d.created_at desc, d.id desc`;
  return rows.filter(where).map((row) => row.id);
}

describe('the delivery log of a workspace', () => {
  it('shows each delivery with its type, offer, endpoint, status, attempts and last response status', async () => {
    const ws = await workspace(f);
    const bad = await endpoint(f, ws, { url: 'https://other.test/bad' });
    f.sender.reply(() => FAIL);
    const offers = [await sentOffer(f, ws.workspaceId)];
    await deliverDue(f);
    const { rows } = await listDeliveryLogPage(logDeps(f), { workspaceId: ws.workspaceId, endpointId: bad.id, after: null, limit: 1 });
    const newest = rows[0]!.view;
    expect(newest).toMatchObject({
      type: 'offer.sent',
      offer_id: offers.at(-1),
      endpoint: { id: bad.id, url: 'https://other.test/bad' },
      status: 'pending',
      attempt_count: 1,
      max_attempts: 8,
      resend_count: 0,
      resend_limit: 5,
      last_response_status: 500,
      waiting_reason: 'retry_pause',
      failure_reason: null,
      test: false,
    });
    expect(newest.next_attempt_at).toBe(new Date(new Date(newest.created_at).getTime() + MINUTE).toISOString());
  });

  it('walks every row exactly once, newest first, under each filter', async () => {
    const { ws, good, bad, offers } = await busyWorkspace();
    const since = new Date(f.clock.now().getTime() - 5 * DAY);
    const until = new Date(f.clock.now().getTime() - 2 * DAY);
    const cases: [Partial<LogQuery>, Parameters<typeof expected>[1]][] = [
      [{}, () => true],
      [{ status: 'succeeded' }, (d) => d.status === 'succeeded'],
      [{ status: 'pending' }, (d) => d.status === 'pending'],
      [{ eventType: 'offer.sent' }, (d) => d.type === 'offer.sent'],
      [{ endpointId: good.id }, (d) => d.endpoint_id === good.id],
      [{ endpointId: bad.id, status: 'pending' }, (d) => d.endpoint_id === bad.id && d.status === 'pending'],
      [{ since }, (d) => d.created_at >= since],
      [{ since, until }, (d) => d.created_at >= since && d.created_at < until],
      [{ q: offers[2]! }, (d) => d.offer_id === offers[2]],
      [{ status: 'succeeded', since, until, eventType: 'offer.sent' }, (d) => d.status === 'succeeded' && d.type === 'offer.sent' && d.created_at >= since && d.created_at < until],
    ];
    for (const [filter, where] of cases) {
      const want = await expected(ws.workspaceId, where);
      expect(want.length, JSON.stringify(filter)).toBeGreaterThan(0);
      const got = await walkLog(f, { workspaceId: ws.workspaceId, ...filter }, 3);
      expect(got, JSON.stringify(filter)).toEqual(want);
    }
  });

  it('finds a delivery by its webhook-id', async () => {
    const { ws, bad } = await busyWorkspace();
    const [row] = await f.sql<{ id: string; message_id: string }[]>`
      select id, message_id from webhook_deliveries where endpoint_id = ${bad.id}::uuid order by created_at limit 1`;
    const { rows } = await listDeliveryLogPage(logDeps(f), { workspaceId: ws.workspaceId, q: row!.message_id, after: null, limit: 50 });
    // The same webhook-id went to both endpoints; the good one is subscribed to offer.sent.
    expect(rows.map((r) => r.view.webhook_id)).toEqual([row!.message_id, row!.message_id]);
    expect(rows.map((r) => r.id)).toContain(row!.id);
  });

  it("never shows another workspace's deliveries, also not when searched by their ids", async () => {
    const { ws, other } = await busyWorkspace();
    const [theirs] = await f.sql<{ id: string; message_id: string }[]>`
      select id, message_id from webhook_deliveries where workspace_id = ${other.workspaceId}::uuid`;
    expect(await walkLog(f, { workspaceId: ws.workspaceId, q: theirs!.message_id }, 10)).toEqual([]);
    await expect(showDeliveryLogEntry(logDeps(f), { workspaceId: ws.workspaceId, deliveryId: theirs!.id })).rejects.toBeInstanceOf(DomainError);
  });

  it('refuses an unknown status', async () => {
    await expect(listDeliveryLogPage(logDeps(f), { workspaceId: (await workspace(f)).workspaceId, status: 'lost', after: null, limit: 5 })).rejects.toThrow(
      /status must be one of/,
    );
  });
});

describe("a delivery's page", () => {
  it('shows the exact body sent, the headers of the last attempt and every attempt, never the secret', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    f.sender.reply((_request, index) => (index === 0 ? FAIL : { ok: true, status: 204, durationMs: 12, responsePrefix: '' }));
    await sentOffer(f, ws.workspaceId);
    await deliverDue(f);
    f.clock.advance(MINUTE + 1500);
    await deliverDue(f);
    const [row] = await f.sql<{ id: string }[]>`select id from webhook_deliveries where endpoint_id = ${ep.id}::uuid`;

    const detail = await showDeliveryLogEntry(logDeps(f), { workspaceId: ws.workspaceId, deliveryId: row!.id });

    const [first, second] = f.sender.sent;
    expect(detail.body).toBe(second!.body);
    expect(detail.headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'Offerdesk-Webhooks/1.0',
      'webhook-id': second!.messageId,
      'webhook-timestamp': String(Math.floor(second!.attemptAt.getTime() / 1000)),
    });
    expect(detail.attempts).toEqual([
      { attempt: 1, attempted_at: first!.attemptAt.toISOString(), succeeded: false, status_code: 500, error: 'status 500', duration_ms: 5, response_prefix: 'oops' },
      { attempt: 2, attempted_at: second!.attemptAt.toISOString(), succeeded: true, status_code: 204, error: null, duration_ms: 12, response_prefix: '' },
    ]);
    expect(detail).toMatchObject({ status: 'succeeded', attempt_count: 2, last_response_status: 204, waiting_reason: null, next_attempt_at: null });
    expect(JSON.stringify(detail)).not.toContain(ep.secret);
    expect(JSON.stringify(detail)).not.toContain(ep.secret.slice('whsec_'.length));
    expect(JSON.stringify(detail)).not.toContain('whsec_');
  });

  it('shows no headers before the first attempt', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();
    const [row] = await f.sql<{ id: string }[]>`select id from webhook_deliveries`;
    const detail = await showDeliveryLogEntry(logDeps(f), { workspaceId: ws.workspaceId, deliveryId: row!.id });
    expect(detail).toMatchObject({ headers: {}, attempts: [], status: 'pending', waiting_reason: 'turn' });
    expect(JSON.parse(detail.body).type).toBe('offer.sent');
  });
});
