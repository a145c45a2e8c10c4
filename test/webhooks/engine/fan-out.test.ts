import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../../src/clock.js';
import { acceptOffer, createOffer } from '../../../src/domain/offer-actions.js';
import { readOffer } from '../../../src/read-model/offers.js';
import { recordWebhookEvent } from '../../../src/domain/outbox.js';
import { verifyBody } from './verify.js';
import { endpoint, sentOffer, workspace, useEngineFixture } from './helpers.js';

const f = useEngineFixture();

describe('fan-out', () => {
  it('delivers an event only to the active endpoints of its workspace subscribed to its type', async () => {
    const ws = await workspace(f);
    const other = await workspace(f);
    const subscribed = await endpoint(f, ws, { url: 'https://hooks.test/sent', events: ['offer.sent'] });
    await endpoint(f, ws, { url: 'https://hooks.test/accepted', events: ['offer.accepted'] });
    await endpoint(f, other, { url: 'https://other.test/all' });

    await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    expect(f.sender.sent.map((s) => s.url)).toEqual(['https://hooks.test/sent']);
    const [row] = await f.sql`select endpoint_id from webhook_deliveries`;
    expect(row!.endpoint_id).toBe(subscribed.id);
  });

  it('never sends the event of an action that rolled back', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    const offer = await createOffer(f.sql, f.clock, { workspaceId: ws.workspaceId, title: 'Draft' });
    await f.sql
      .begin(async (tx) => {
        await tx`update offers set last_sequence = 2 where id = ${offer.id}::uuid`;
        await tx`insert into offer_events (offer_id, sequence, type, occurred_at) values (${offer.id}::uuid, 2, 'sent', ${f.clock.now()})`;
        await recordWebhookEvent(tx, {
          workspaceId: ws.workspaceId,
          type: 'offer.sent',
          offerId: offer.id,
          offerSequence: 2,
          occurredAt: f.clock.now(),
          recordedAt: f.clock.now(),
        });
        throw new Error('the action fails after writing its outbox row');
      })
      .catch(() => undefined);

    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    expect(f.sender.sent).toHaveLength(0);
    expect(await f.sql`select 1 from webhook_deliveries`).toHaveLength(0);
  });

  it('prepares the body with id = webhook-id, the event time, api_version v1 and the offer as the API reads it', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    const offerId = await sentOffer(f, ws.workspaceId);
    const [outbox] = await f.sql<{ id: string }[]>`select id from webhook_outbox`;
    const sentAt = f.clock.now();
    f.clock.advance(MINUTE);

    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    const [sent] = f.sender.sent;
    const body = JSON.parse(sent!.body);
    expect(sent!.messageId).toBe(outbox!.id);
    expect(body).toEqual({
      id: outbox!.id,
      type: 'offer.sent',
      created_at: sentAt.toISOString(),
      api_version: 'v1',
      data: {
        offer: await readOffer(f.sql, { workspaceId: ws.workspaceId, offerId, now: f.clock.now() }),
        event: { sequence: 2, type: 'sent', occurred_at: sentAt.toISOString(), version: 1, data: { recipient_email: 'buyer@client.test' } },
      },
    });
    verifyBody('offer.sent', body);
  });

  it('reads the offer when the webhook is prepared, so a quick later change already shows', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    const offerId = await sentOffer(f, ws.workspaceId);
    await acceptOffer(f.sql, f.clock, { offerId, signerName: 'Bea Buyer', signerEmail: 'buyer@client.test' });

    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    const bodies = f.sender.sent.map((s) => JSON.parse(s.body));
    expect(bodies.map((b) => b.type).sort()).toEqual(['offer.accepted', 'offer.sent']);
    expect(bodies.map((b) => b.data.offer.status)).toEqual(['accepted', 'accepted']);
    expect(bodies.find((b) => b.type === 'offer.sent').data.event.type).toBe('sent');
  });

  it('sends one delivery per endpoint with the same webhook-id and the same body bytes', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws, { url: 'https://hooks.test/one' });
    await endpoint(f, ws, { url: 'https://other.test/two' });
    await sentOffer(f, ws.workspaceId);

    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    const [a, b] = f.sender.sent;
    expect(a!.messageId).toBe(b!.messageId);
    expect(a!.body).toBe(b!.body);
    expect(new Set([a!.url, b!.url])).toEqual(new Set(['https://hooks.test/one', 'https://other.test/two']));
  });

  it('empties the outbox and prepares nothing twice when fan-out runs again', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);

    await f.engine.fanOut();
    await f.engine.fanOut();

    expect(await f.sql`select 1 from webhook_outbox`).toHaveLength(0);
    expect(await f.sql`select 1 from webhook_deliveries`).toHaveLength(1);
  });

  it('drops events of a workspace without a subscribed endpoint instead of keeping them', async () => {
    const ws = await workspace(f);
    await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();
    await endpoint(f, ws);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();

    expect(f.sender.sent).toHaveLength(0);
    expect(await f.sql`select 1 from webhook_outbox`).toHaveLength(0);
  });
});
