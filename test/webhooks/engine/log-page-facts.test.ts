import { describe, expect, it } from 'vitest';
import { resumeEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { resendDelivery } from '../../../src/webhooks/management/resend.js';
import { listDeliveryLog, type LogFilter } from '../../../src/webhooks/sql/listDeliveryLog.js';
import { markEndpointPaused } from '../../../src/webhooks/sql/markEndpointPaused.js';
import { explaining, relationsRead, type PlanNode } from '../../support/explain.js';
import { FAIL, OK, deliverDue, endpoint, manyEvents, runSchedulesToEnd, sentOffer, useEngineFixture, workspace } from './helpers.js';

/**
 * A delivery's log row carries its offer and its last response status from when it ends
 * (migration 0033), so a page of the log reads neither the messages nor the attempts for it;
 * a row without them (an open delivery, one cancelled, one written before the migration) reads
 * them as before, and the page shows the same either way.
 */
const f = useEngineFixture();

const all = (workspaceId: string): LogFilter => ({ workspaceId, status: null, eventType: null, endpointId: null, since: null, until: null, q: null });
const stored = (sql: typeof f.sql) => sql<{ status: string; offer_id: string | null; last_response_status: number | null }[]>`
  select status, offer_id, last_response_status from webhook_delivery_log order by status`;

describe('what the log page shows, on the log row', () => {
  it('is written when a delivery succeeds or fails for good, and the page reads no message or attempt for it', async () => {
    const ws = await workspace(f);
    const up = await endpoint(f, ws, { url: 'https://hooks.test/up' });
    await endpoint(f, ws, { url: 'https://hooks.test/down' });
    f.sender.reply((request) => (request.url.endsWith('/up') ? OK : FAIL));
    const offerId = await sentOffer(f, ws.workspaceId);
    await runSchedulesToEnd(f);
    expect(await stored(f.sql)).toEqual([
      { status: 'failed', offer_id: offerId, last_response_status: 500 },
      { status: 'succeeded', offer_id: offerId, last_response_status: 200 },
    ]);

    const plans: PlanNode[] = [];
    await listDeliveryLog(explaining(f.sql, plans), { ...all(ws.workspaceId), after: null, limit: 50 });
    const page = await listDeliveryLog(f.sql, { ...all(ws.workspaceId), after: null, limit: 50 });
    expect(relationsRead(plans[0]!, 'webhook_messages')).toEqual(new Set());
    expect(relationsRead(plans[0]!, 'webhook_attempts')).toEqual(new Set());
    // The page answers as it answers for rows that carry neither (read where they live).
    await f.sql`update webhook_delivery_log set offer_id = null, last_response_status = null`;
    const read = await listDeliveryLog(f.sql, { ...all(ws.workspaceId), after: null, limit: 50 });
    expect(read).toEqual(page);
    expect(page.map((row) => [row.endpoint_id === up.id, row.offer_id, row.last_response_status])).toEqual(
      expect.arrayContaining([[true, offerId, 200], [false, offerId, 500]]),
    );
  });

  it('is carried by an open delivery from fan-out, into its cancelled row and back on a resend', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    f.sender.reply(() => FAIL);
    const offerId = await sentOffer(f, ws.workspaceId);
    await deliverDue(f);
    expect(await f.sql`select offer_id from webhook_queue`).toEqual([{ offer_id: offerId }]);

    await markEndpointPaused(f.sql, { endpointId: ep.id, now: f.clock.now() });
    expect(await stored(f.sql)).toEqual([{ status: 'cancelled', offer_id: offerId, last_response_status: null }]);
    // No status stored for it: the page reads its one attempt.
    const [cancelled] = await listDeliveryLog(f.sql, { ...all(ws.workspaceId), after: null, limit: 50 });
    expect(cancelled).toMatchObject({ status: 'cancelled', offer_id: offerId, last_response_status: 500 });

    await resumeEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await resendDelivery(f.manage, { deliveryId: cancelled!.id, actorId: ws.ownerId });
    expect(await f.sql`select offer_id from webhook_queue`).toEqual([{ offer_id: offerId }]);
    f.sender.reply(() => OK);
    await deliverDue(f);
    expect(await stored(f.sql)).toEqual([{ status: 'succeeded', offer_id: offerId, last_response_status: 200 }]);
  });

  it('is written on a delivery refused for a full queue (its offer; no response, so no status)', async () => {
    f.sender.reply(() => FAIL);
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 1000);
    await f.engine.fanOut();
    // Attempted once, the 1,000 no longer wait (docs/webhook-delivery.md "Limits"), but stay open.
    await f.engine.dispatchOnce();
    await manyEvents(f, ws.workspaceId, 2);
    await f.engine.fanOut();
    const refused = await f.sql<{ offer_id: string | null; message_offer: string; last_response_status: number | null }[]>`
      select l.offer_id, m.offer_id as message_offer, l.last_response_status
        from webhook_delivery_log l join webhook_messages m on m.id = l.message_id and m.created_at = l.created_at
       where l.failure_reason = 'endpoint_queue_full'`;
    expect(refused).toHaveLength(2);
    for (const row of refused) expect(row).toEqual({ offer_id: row.message_offer, message_offer: expect.any(String), last_response_status: null });
  });
});
