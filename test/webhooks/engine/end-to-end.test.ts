import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE, ManualClock } from '../../../src/clock.js';
import {
  acceptOffer,
  createOffer,
  expireOffer,
  sendOffer,
  signOffer,
  viewOffer,
  withdrawOffer,
} from '../../../src/domain/offer-actions.js';
import { addEndpoint, testEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { OFFER_WEBHOOK_TYPES } from '../../../src/domain/outbox.js';
import { workspace } from './helpers.js';
import { useRealDelivery } from './real-delivery.js';
import { verifyBody } from './verify.js';

/**
 * Real deliveries: the engine with the project's HTTPS sender, a real receiver with a run-time
 * test CA, every request verified with the Standard Webhooks reference library and every body
 * validated against the webhooks section of openapi.yaml.
 */

/** openapi.yaml "Webhook request" headers, plus what HTTP/1.1 itself needs on the wire. */
const WEBHOOK_HEADERS = ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];
const HTTP_HEADERS = ['host', 'content-length', 'connection'];

const clock = new ManualClock(new Date());
const h = useRealDelivery(clock);

async function deliverAll(): Promise<void> {
  await h.engine.fanOut();
  while ((await h.engine.dispatchOnce()).length > 0);
}

describe('end to end over HTTPS', () => {
  it('delivers every webhook type, signed, with exactly the webhook headers and a body matching openapi.yaml', async () => {
    const ws = await workspace({ sql: h.db.sql, clock });
    const { secret } = await addEndpoint(h.manage, {
      workspaceId: ws.workspaceId,
      url: 'https://hooks.test/webhooks?source=offerdesk',
      events: [...OFFER_WEBHOOK_TYPES],
      actorId: ws.ownerId,
    });
    const now = clock.now().getTime();
    const ago = (ms: number) => new Date(now - ms);
    const offer = (title: string) => createOffer(h.db.sql, clock, { workspaceId: ws.workspaceId, title, at: ago(4 * HOUR) });

    // offer.sent, offer.first_viewed, offer.accepted
    const single = await offer('Single signer');
    await sendOffer(h.db.sql, clock, { offerId: single.id, recipientEmail: 'bea@client.test', recipientName: 'Bea', expiresAt: new Date(now + 7 * 24 * HOUR) });
    await viewOffer(h.db.sql, clock, { offerId: single.id });
    await acceptOffer(h.db.sql, clock, { offerId: single.id, signerName: 'Bea', signerEmail: 'bea@client.test' });
    // offer.signed (then offer.accepted for the last signature)
    const multi = await offer('Two signers');
    await sendOffer(h.db.sql, clock, { offerId: multi.id, recipientEmail: 'cfo@client.test', expiresAt: new Date(now + 7 * 24 * HOUR), signers: 2 });
    await signOffer(h.db.sql, clock, { offerId: multi.id, signerName: 'Carl', signerEmail: 'cfo@client.test', role: 'CFO' });
    // offer.withdrawn
    const withdrawn = await offer('Withdrawn');
    await sendOffer(h.db.sql, clock, { offerId: withdrawn.id, recipientEmail: 'x@client.test', expiresAt: new Date(now + 7 * 24 * HOUR) });
    await withdrawOffer(h.db.sql, clock, { offerId: withdrawn.id });
    // offer.expired: sent in the past with a deadline already passed
    const expiring = await offer('Expired');
    await sendOffer(h.db.sql, clock, { offerId: expiring.id, recipientEmail: 'y@client.test', at: ago(3 * HOUR), expiresAt: ago(2 * HOUR) });
    await expireOffer(h.db.sql, clock, { offerId: expiring.id });
    // ping
    const [endpointRow] = await h.db.sql<{ id: string }[]>`select id from webhook_endpoints`;
    await testEndpoint(h.manage, { endpointId: endpointRow!.id, actorId: ws.ownerId });

    await deliverAll();
    clock.advance(2 * MINUTE); // offer.expired is dispatched two minutes after detection
    await deliverAll();

    const received = h.receiver.requests.map((request) => {
      const body = request.body.toString('utf8');
      const verified = new Webhook(secret).verify(body, request.headers) as { type: string };
      return { request, body, verified };
    });
    const types = received.map((r) => r.verified.type).sort();
    expect(types).toEqual(
      ['offer.accepted', 'offer.first_viewed', 'offer.sent', 'offer.sent', 'offer.sent', 'offer.sent', 'offer.signed', 'offer.withdrawn', 'offer.expired', 'ping'].sort(),
    );
    for (const { request, body, verified } of received) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/webhooks?source=offerdesk');
      expect([...request.headerNames].sort()).toEqual([...WEBHOOK_HEADERS, ...HTTP_HEADERS].sort());
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe('Offerdesk-Webhooks/1.0');
      expect(request.headers['webhook-id']).toBe((verified as unknown as { id: string }).id);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(64 * 1024);
      verifyBody(verified.type, JSON.parse(body));
    }
  });

  it('retries a failed delivery with the same webhook-id and body bytes, signed for its new timestamp', async () => {
    const ws = await workspace({ sql: h.db.sql, clock });
    const { id, secret } = await addEndpoint(h.manage, { workspaceId: ws.workspaceId, url: 'https://other.test/resend', events: ['offer.sent'], actorId: ws.ownerId });
    const before = h.receiver.requests.length;
    h.receiver.reply(() => ({ status: 503, body: 'down for maintenance' }));
    const offer = await createOffer(h.db.sql, clock, { workspaceId: ws.workspaceId, title: 'Retry me' });
    await sendOffer(h.db.sql, clock, { offerId: offer.id, recipientEmail: 'r@client.test', expiresAt: new Date(clock.now().getTime() + 7 * 24 * HOUR) });
    await deliverAll();
    h.receiver.reply(() => ({ status: 204 }));
    clock.advance(MINUTE);
    await deliverAll();

    const [first, second] = h.receiver.requests.slice(before);
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(first!.body.equals(second!.body)).toBe(true);
    expect(first!.headers['webhook-timestamp']).not.toBe(second!.headers['webhook-timestamp']);
    expect(() => new Webhook(secret).verify(second!.body.toString('utf8'), second!.headers)).not.toThrow();
    const [log] = await h.db.sql<{ status_code: number; response_prefix: string }[]>`
      select a.status_code, a.response_prefix from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
       where d.endpoint_id = ${id}::uuid order by a.id limit 1`;
    expect(log).toEqual({ status_code: 503, response_prefix: 'down for maintenance' });
  });
});
