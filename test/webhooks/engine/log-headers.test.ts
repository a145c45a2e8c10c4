import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import type { EngineDeps } from '../../../src/webhooks/deps.js';
import { createWebhookEngine, type WebhookEngine } from '../../../src/webhooks/engine.js';
import { showDeliveryLogEntry } from '../../../src/webhooks/log-page.js';
import { addEndpoint, rotateSecret, testEndpoint, type ManagementDeps } from '../../../src/webhooks/management.js';
import { createWebhookSender, type WebhookSender } from '../../../src/webhooks/sender.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { devResolveEnv, startHttpsReceiver, type HttpsReceiver } from '../../support/https-receiver.js';
import { MASTER_KEY, workspace } from './helpers.js';

/**
 * A delivery's page shows the headers exactly as a real HTTPS receiver got them on the last
 * attempt, the signature included, and keeps showing them after the secret is rotated.
 */
let db: TestDatabase;
let receiver: HttpsReceiver;
let sender: WebhookSender;
let engine: WebhookEngine;
let manage: ManagementDeps;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  db = await freshDatabase();
  receiver = await startHttpsReceiver();
  const config = loadConfig({ OFFERDESK_MASTER_KEY: MASTER_KEY, OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(receiver) });
  sender = createWebhookSender({ config: config.webhooks, tls: { ca: receiver.caPem } });
  const masterKey = Buffer.from(MASTER_KEY, 'base64');
  const deps: EngineDeps = {
    sql: db.sql,
    clock,
    sender,
    masterKey,
    logger: createLogger('silent'),
    settings: { startsPerMinutePerWorkspace: 60, concurrency: 8, leaseMs: 60_000 },
  };
  engine = createWebhookEngine(deps);
  manage = { sql: db.sql, clock, config: config.webhooks, masterKey };
});

afterAll(async () => {
  await sender.close();
  await receiver.close();
  await db.drop();
});

const SPEC_HEADERS = ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

describe('headers as sent', () => {
  it('equal the five headers the receiver got on the last attempt, and never the secret', async () => {
    const ws = await workspace({ sql: db.sql, clock });
    const ep = await addEndpoint(manage, { workspaceId: ws.workspaceId, url: 'https://hooks.test/in', events: ['offer.sent'], actorId: ws.ownerId });
    receiver.reply(() => ({ status: 503, body: 'down for maintenance' }));
    const test = await testEndpoint(manage, { endpointId: ep.id, actorId: ws.ownerId });
    await engine.dispatchOnce();
    clock.advance(MINUTE + 2500);
    receiver.reply(() => ({ status: 200, body: 'ok' }));
    await engine.dispatchOnce();
    await rotateSecret({ ...manage }, { endpointId: ep.id, actorId: ws.ownerId });

    const detail = await showDeliveryLogEntry({ sql: db.sql, clock, config: manage.config }, { workspaceId: ws.workspaceId, deliveryId: test.delivery_id });

    const last = receiver.requests.at(-1)!;
    const sent = Object.fromEntries(SPEC_HEADERS.map((name) => [name, last.headers[name]]));
    const shown = Object.fromEntries(Object.entries(detail.headers).map(([name, value]) => [name.toLowerCase(), value]));
    expect(shown).toEqual(sent);
    expect(receiver.requests.at(-2)!.headers['webhook-signature']).not.toBe(sent['webhook-signature']);
    expect(detail.attempts.map((a) => [a.status_code, a.response_prefix])).toEqual([
      [503, 'down for maintenance'],
      [200, 'ok'],
    ]);
    expect(detail.body).toBe(last.body.toString('utf8'));
    expect(JSON.stringify(detail)).not.toContain(ep.secret.slice('whsec_'.length));
  });
});
