import { describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../../../src/clock.js';
import { showDeliveryLogEntry } from '../../../src/webhooks/management/delivery-log.js';
import { addEndpoint, rotateSecret, testEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { workspace } from './helpers.js';
import { useRealDelivery } from './real-delivery.js';

/**
 * A delivery's page shows the headers exactly as a real HTTPS receiver got them on the last
 * attempt, the signature included, and keeps showing them after the secret is rotated.
 */
const clock = new ManualClock(new Date());
const h = useRealDelivery(clock);

const WEBHOOK_HEADERS = ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

describe('headers as sent', () => {
  it('equal the five headers the receiver got on the last attempt, and never the secret', async () => {
    const ws = await workspace({ sql: h.db.sql, clock });
    const ep = await addEndpoint(h.manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/in', events: ['offer.sent'], actorId: ws.ownerId });
    h.receiver.reply(() => ({ status: 503, body: 'down for maintenance' }));
    const test = await testEndpoint(h.manage, { endpointId: ep.id, actorId: ws.ownerId });
    await h.engine.dispatchOnce();
    clock.advance(MINUTE + 2500);
    h.receiver.reply(() => ({ status: 200, body: 'ok' }));
    await h.engine.dispatchOnce();
    await rotateSecret({ ...h.manage }, { endpointId: ep.id, actorId: ws.ownerId });

    const detail = await showDeliveryLogEntry({ sql: h.db.sql, clock, config: h.manage.config }, { workspaceId: ws.workspaceId, deliveryId: test.delivery_id });

    const last = h.receiver.requests.at(-1)!;
    const sent = Object.fromEntries(WEBHOOK_HEADERS.map((name) => [name, last.headers[name]]));
    const shown = Object.fromEntries(Object.entries(detail.headers).map(([name, value]) => [name.toLowerCase(), value]));
    expect(shown).toEqual(sent);
    expect(h.receiver.requests.at(-2)!.headers['webhook-signature']).not.toBe(sent['webhook-signature']);
    expect(detail.attempts.map((a) => [a.status_code, a.response_prefix])).toEqual([
      [503, 'down for maintenance'],
      [200, 'ok'],
    ]);
    expect(detail.body).toBe(last.body.toString('utf8'));
    expect(JSON.stringify(detail)).not.toContain(ep.secret.slice('whsec_'.length));
  });
});
