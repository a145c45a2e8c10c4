import { describe, expect, it } from 'vitest';
import { DAY, MINUTE } from '../../../src/clock.js';
import { createOffer, sendOffer } from '../../../src/domain/offer-actions.js';
import { shownDelivery } from './log-helpers.js';
import { verifyBody } from './verify.js';
import { endpoint, runSchedulesToEnd, sentOffer, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture();

describe('expiry job (openapi.yaml "Webhook events")', () => {
  it('detects expiry at its 15-minute run and makes offer.expired due two minutes later', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws, { events: ['offer.expired'] });
    const offer = await createOffer(f.sql, f.clock, { workspaceId: ws.workspaceId, title: 'Short deadline' });
    const deadline = new Date(f.clock.now().getTime() + 5 * MINUTE + 123);
    await sendOffer(f.sql, f.clock, { offerId: offer.id, recipientEmail: 'b@client.test', expiresAt: deadline });
    const start = f.clock.now().getTime();
    const at = (minutes: number) => f.clock.set(new Date(start + minutes * MINUTE));

    expect(await f.engine.runDueJobs()).toContain('expire-offers');
    at(10);
    expect(await f.engine.runDueJobs()).not.toContain('expire-offers');
    await f.engine.fanOut();
    expect(await f.sql`select 1 from webhook_outbox`).toHaveLength(0);

    at(15);
    expect(await f.engine.runDueJobs()).toContain('expire-offers');
    at(17);
    f.clock.advance(-1);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();
    expect(f.sender.sent).toHaveLength(0);
    f.clock.advance(1);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    expect(f.sender.sent).toHaveLength(1);
    const body = JSON.parse(f.sender.sent[0]!.body);
    expect(body.type).toBe('offer.expired');
    expect(body.created_at).toBe(deadline.toISOString());
    expect(body.data.event).toMatchObject({ type: 'expired', data: { expires_at: new Date(Math.floor(deadline.getTime() / 1000) * 1000).toISOString() } });
    expect(body.data.offer).toMatchObject({ status: 'expired', expired_at: deadline.toISOString() });
    verifyBody('offer.expired', body);
  });
});

describe('delivery log retention (30 days)', () => {
  it('deletes deliveries finished more than 30 days ago with their attempts and keeps newer ones', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId, 'Old');
    await runSchedulesToEnd(f);
    const [old] = await f.sql<{ id: string }[]>`select id from webhook_deliveries`;
    f.clock.advance(20 * DAY);
    await sentOffer(f, ws.workspaceId, 'Newer');
    await runSchedulesToEnd(f);
    await f.engine.runDueJobs();

    f.clock.advance(10 * DAY + 1);
    expect(await f.engine.runDueJobs()).toContain('webhook-log-retention');

    const left = await f.sql<{ id: string }[]>`select id from webhook_deliveries`;
    expect(left).toHaveLength(1);
    expect(left[0]!.id).not.toBe(old!.id);
    expect(await f.sql`select 1 from webhook_attempts where delivery_id = ${old!.id}::uuid`).toHaveLength(0);
    expect(await f.sql`select 1 from webhook_messages`).toHaveLength(1);
    await expect(shownDelivery(f, old!.id)).rejects.toThrow(/not found/);
  });
});
