import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenCertificates, type ListenCertificates } from '../../../src/cli/listen/certificates.js';
import { startListenReceiver, type ListenReceiver, type ReceivedEvent } from '../../../src/cli/listen/receiver.js';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { devListenUrl, withDevListen } from '../../../src/webhooks/management/dev-listen-rules.js';
import { createWebhookEngine } from '../../../src/webhooks/engine/engine.js';
import { addEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { createWebhookSender, type WebhookSender } from '../../../src/webhooks/transport/sender.js';
import { tempDir } from '../../runtime/helpers.js';
import { engineFixture, sentOffer, webhookConfig, workspace, type EngineFixture } from './helpers.js';

/**
 * The `offerdesk listen` mapping as the worker sees it (README "Receiving webhooks on your
 * laptop"): learnt from dev_listen_endpoints, honoured only while development mappings are on,
 * over real HTTPS to the listen receiver with the listen CA trusted for that endpoint only.
 */

let f: EngineFixture;
let certificates: ListenCertificates;
let receiver: ListenReceiver;
let sender: WebhookSender;
const received: ReceivedEvent[] = [];
const data = tempDir('dev-listen');

beforeAll(async () => {
  f = await engineFixture();
  certificates = await listenCertificates(data.path);
  receiver = await startListenReceiver({ certPem: certificates.certPem, keyPem: certificates.keyPem, onEvent: (e) => received.push(e) });
  sender = createWebhookSender({ config: webhookConfig(), responseTimeoutMs: 5_000 });
});
beforeEach(async () => {
  await f.reset();
  // The receiver checks webhook-timestamp against its own clock (5 minutes), like any receiver.
  f.clock.set(new Date());
  received.length = 0;
});
afterAll(async () => {
  await sender.close();
  await receiver.close();
  await f.close();
  data.remove();
});

async function listenEndpoint() {
  const ws = await workspace(f);
  const added = await addEndpoint(f.manage, {
    workspaceId: ws.workspaceId,
    url: devListenUrl(),
    events: ['offer.sent'],
    actorId: ws.ownerId,
    devListen: { address: '127.0.0.1', port: receiver.port, caPem: certificates.caPem },
  });
  receiver.setSecret(added.secret);
  return { ...ws, endpointId: added.id };
}

function engine(devListen: boolean) {
  return createWebhookEngine({ ...f.deps, sender, settings: { ...f.deps.settings, devListen } });
}

describe('a worker with development mappings on', () => {
  it('delivers to the listen receiver, which verifies the signature and answers 200', async () => {
    const ws = await listenEndpoint();
    const offerId = await sentOffer(f, ws.workspaceId);
    const worker = engine(true);
    await worker.fanOut();
    const outcomes = await worker.dispatchOnce();
    expect(outcomes.map((o) => o.kind)).toEqual(['delivered']);
    expect(received).toMatchObject([{ type: 'offer.sent', offerId, verified: true, status: 200 }]);
  });
});

describe('a worker with development mappings off (DATABASE_URL set, or production)', () => {
  it('refuses the listen endpoint like any internal name and sends nothing', async () => {
    const ws = await listenEndpoint();
    await sentOffer(f, ws.workspaceId);
    const worker = engine(false);
    await worker.fanOut();
    expect((await worker.dispatchOnce()).map((o) => o.kind)).toEqual(['retry-scheduled']);
    const [attempt] = await f.sql<{ error: string }[]>`select error from webhook_attempts`;
    expect(attempt!.error).toMatch(/^address refused: host name must be public \(\.localhost names are internal\)/);
    expect(received).toEqual([]);
  });
});

describe('registering a listen endpoint', () => {
  it('is refused where development mappings are off', async () => {
    const ws = await workspace(f);
    const off = { ...f.manage, config: webhookConfig({ OFFERDESK_DEV_LISTEN: 'false' }) };
    await expect(
      addEndpoint(off, {
        workspaceId: ws.workspaceId,
        url: devListenUrl(),
        events: ['offer.sent'],
        actorId: ws.ownerId,
        devListen: { address: '127.0.0.1', port: receiver.port, caPem: certificates.caPem },
      }),
    ).rejects.toThrow(/development mappings are off/);
    const [row] = await f.sql<{ n: number }[]>`select count(*)::int as n from webhook_endpoints`;
    expect(row!.n).toBe(0);
  });

  it('is refused for any other host name', async () => {
    const ws = await workspace(f);
    await expect(
      addEndpoint(f.manage, {
        workspaceId: ws.workspaceId,
        url: 'https://api.example.com/hooks',
        events: ['offer.sent'],
        actorId: ws.ownerId,
        devListen: { address: '127.0.0.1', port: receiver.port, caPem: certificates.caPem },
      }),
    ).rejects.toThrow(/must use offerdesk-listen\.localhost/);
  });

  it('never stores a mapping to an address off this machine', async () => {
    const { endpointId } = await listenEndpoint();
    await expect(f.sql`update dev_listen_endpoints set address = '10.0.0.1' where endpoint_id = ${endpointId}::uuid`).rejects.toThrow(
      /dev_listen_endpoints_address_check/,
    );
  });
});

describe('the mapping a worker applies', () => {
  it('maps the listen name to the loopback port, and nothing for an address off this machine', () => {
    const config = webhookConfig();
    const caPem = '-----BEGIN CERTIFICATE-----';
    expect(withDevListen(config, devListenUrl(), { address: '127.0.0.1', port: 4444, caPem }).devResolve.get('offerdesk-listen.localhost')).toEqual({
      address: '127.0.0.1',
      port: 4444,
    });
    const offMachine = { address: '10.0.0.1', port: 4444, caPem } as unknown as Parameters<typeof withDevListen>[2];
    expect(withDevListen(config, devListenUrl(), offMachine)).toBe(config);
  });
});

describe('when development mappings are on', () => {
  it('is on with the embedded database and off with DATABASE_URL', () => {
    expect(loadConfig({}).webhooks.devListen).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://db.internal/offerdesk' }).webhooks.devListen).toBe(false);
  });

  it('can be turned on for DATABASE_URL with OFFERDESK_DEV_LISTEN=1', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/dev', OFFERDESK_DEV_LISTEN: '1' }).webhooks.devListen).toBe(true);
  });

  it('is never on with NODE_ENV=production, and asking for it there stops the start', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).webhooks.devListen).toBe(false);
    expect(() => loadConfig({ NODE_ENV: 'production', OFFERDESK_DEV_LISTEN: '1' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', OFFERDESK_DEV_LISTEN: '1' })).toThrow(/NODE_ENV=production/);
  });
});
