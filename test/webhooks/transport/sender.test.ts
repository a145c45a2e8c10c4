import { createServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type WebhookConfig } from '../../../src/config.js';
import type { Logger } from '../../../src/log.js';
import { checkEndpointAddress, type Resolver } from '../../../src/webhooks/transport/address-rules.js';
import { generateEndpointSecret } from '../../../src/sealing/secrets.js';
import {
  createWebhookSender,
  RESPONSE_PREFIX_BYTES,
  type SendRequest,
  USER_AGENT,
  type WebhookSender,
} from '../../../src/webhooks/transport/sender.js';
import { poolKey } from '../../../src/webhooks/transport/pool.js';
import { devResolveFor, type HttpsReceiver, startHttpsReceiver } from '../../support/https-receiver.js';

/**
 * The reply deadline of the tests about it: a silent receiver costs a fraction of a second. Every
 * other test keeps the product's (RESPONSE_TIMEOUT_MS, 10 s), which no TLS handshake on a loaded
 * machine reaches.
 */
const TEST_TIMEOUT_MS = 400;

let receiver: HttpsReceiver;
let sender: WebhookSender | undefined;
const secret = generateEndpointSecret();

function configFor(devResolve: Map<string, { address: string; port: number }>): WebhookConfig {
  return { ...loadConfig({}).webhooks, devResolve };
}

function quietLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_f: unknown, m: string) => warnings.push(m), error: () => undefined, warnings };
  return logger as unknown as Logger & { warnings: string[] };
}

/** A sender that trusts the test CA and maps hooks.test / other.test to the receiver. */
function trustingSender(
  extra: { resolver?: Resolver; devResolve?: Map<string, { address: string; port: number }>; responseTimeoutMs?: number } = {},
) {
  sender = createWebhookSender({
    config: configFor(extra.devResolve ?? devResolveFor(receiver)),
    resolver: extra.resolver,
    logger: quietLogger(),
    responseTimeoutMs: extra.responseTimeoutMs,
    tls: { ca: receiver.caPem },
  });
  return sender;
}

function delivery(overrides: Partial<SendRequest> = {}): SendRequest {
  const id = '6f1c2a9e-3b7d-4c1e-9a2b-0d4e5f6a7b8c';
  return {
    url: 'https://hooks.test/webhooks/offerdesk?source=test',
    secret,
    messageId: id,
    body: JSON.stringify({ id, type: 'ping', created_at: '2026-01-15T10:00:00.000Z', api_version: 'v1', data: {} }),
    attemptAt: new Date(),
    customOfferDomains: [],
    ...overrides,
  };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeEach(async () => {
  receiver = await startHttpsReceiver();
});

afterEach(async () => {
  await sender?.close();
  sender = undefined;
  await receiver.close();
});

describe('the request on the wire', () => {
  it('carries exactly the webhook request headers plus host, content-length and connection', async () => {
    await trustingSender().send(delivery());
    expect([...receiver.requests[0]!.headerNames].sort()).toEqual(
      ['connection', 'content-length', 'content-type', 'host', 'user-agent', 'webhook-id', 'webhook-signature', 'webhook-timestamp'],
    );
  });

  it('sends each header once', async () => {
    await trustingSender().send(delivery());
    const names = receiver.requests[0]!.headerNames;
    expect(new Set(names).size).toBe(names.length);
  });

  it('is a POST of application/json with the Offerdesk user agent to the path and query of the URL', async () => {
    await trustingSender().send(delivery());
    const request = receiver.requests[0]!;
    expect([request.method, request.path, request.headers['content-type'], request.headers['user-agent']]).toEqual([
      'POST',
      '/webhooks/offerdesk?source=test',
      'application/json',
      USER_AGENT,
    ]);
  });

  it('names the host, never the address it connected to, in the Host header', async () => {
    await trustingSender().send(delivery());
    expect(receiver.requests[0]!.headers.host).toBe('hooks.test');
  });

  it('sends the message id as webhook-id and the attempt time in unix seconds as webhook-timestamp', async () => {
    const attemptAt = new Date('2026-01-15T10:00:07.900Z');
    await trustingSender().send(delivery({ attemptAt }));
    const { headers } = receiver.requests[0]!;
    expect([headers['webhook-id'], headers['webhook-timestamp']]).toEqual([delivery().messageId, '1768471207']);
  });

  it('sends the body byte for byte as given', async () => {
    const body = '{"id":"x","title":"Angebot für Müller – 10 € 🚀"}';
    await trustingSender().send(delivery({ body }));
    expect(receiver.requests[0]!.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
  });

  it('is signed so that the reference library verifies the bytes received', async () => {
    await trustingSender().send(delivery({ body: '{"id":"x","note":"grüße"}' }));
    const request = receiver.requests[0]!;
    expect(new Webhook(secret).verify(request.body, request.headers)).toEqual({ id: 'x', note: 'grüße' });
  });
});

describe('outcomes', () => {
  it('reports a 2xx reply as success with its status and body', async () => {
    receiver.reply(() => ({ status: 202, body: 'accepted' }));
    const outcome = await trustingSender().send(delivery());
    expect(outcome).toMatchObject({ ok: true, status: 202, responsePrefix: 'accepted' });
  });

  it('measures the duration of the attempt', async () => {
    receiver.reply(() => ({ status: 200, delayMs: 120 }));
    const outcome = await trustingSender().send(delivery());
    expect(outcome.durationMs).toBeGreaterThanOrEqual(110);
  });

  it('reports a 3xx reply as a failure and does not follow the redirect', async () => {
    receiver.reply((_request, index) =>
      index === 0 ? { status: 302, headers: { location: 'https://hooks.test/elsewhere' } } : { status: 200 },
    );
    const outcome = await trustingSender().send(delivery());
    expect(outcome).toMatchObject({ ok: false, status: 302, failure: 'status', error: 'status 302: redirects are not followed' });
    expect(receiver.requests).toHaveLength(1);
  });

  it('reports a 500 reply as a failure that keeps the first 1024 bytes of the body', async () => {
    const body = `${'E'.repeat(RESPONSE_PREFIX_BYTES)}this part is not kept`;
    receiver.reply(() => ({ status: 500, body }));
    const outcome = await trustingSender().send(delivery());
    expect(outcome).toMatchObject({ ok: false, status: 500, failure: 'status', responsePrefix: 'E'.repeat(RESPONSE_PREFIX_BYTES) });
  });

  it('drops a character cut in half at the prefix limit instead of mangling it', async () => {
    receiver.reply(() => ({ status: 400, body: `${'a'.repeat(RESPONSE_PREFIX_BYTES - 1)}é and more` }));
    const outcome = await trustingSender().send(delivery());
    expect(outcome.responsePrefix).toBe('a'.repeat(RESPONSE_PREFIX_BYTES - 1));
  });

  it('replaces NUL bytes in the kept body so the log can store it as text', async () => {
    receiver.reply(() => ({ status: 400, body: Buffer.from([0x6f, 0x00, 0x6b]) }));
    const outcome = await trustingSender().send(delivery());
    expect(outcome.responsePrefix).toBe('o\uFFFDk');
  });

  it('times out a receiver that never answers', async () => {
    receiver.reply(() => ({ action: 'never' }));
    const outcome = await trustingSender({ responseTimeoutMs: TEST_TIMEOUT_MS }).send(delivery());
    expect(outcome).toMatchObject({ ok: false, status: null, failure: 'timeout', error: `no complete reply within ${TEST_TIMEOUT_MS} ms` });
  });

  it('times out a receiver that sends a 200 status line and then stalls the body', async () => {
    receiver.reply(() => ({ action: 'headers-then-stall', status: 200 }));
    const outcome = await trustingSender({ responseTimeoutMs: TEST_TIMEOUT_MS }).send(delivery());
    expect(outcome).toMatchObject({ ok: false, status: 200, failure: 'timeout' });
  });

  it('ends a timed-out attempt close to the deadline', async () => {
    receiver.reply(() => ({ action: 'never' }));
    const outcome = await trustingSender({ responseTimeoutMs: TEST_TIMEOUT_MS }).send(delivery());
    expect(outcome.durationMs).toBeLessThan(TEST_TIMEOUT_MS + 300);
  });

  it('reports a connection closed without a reply as a failure', async () => {
    receiver.reply(() => ({ action: 'close' }));
    const outcome = await trustingSender().send(delivery());
    expect(outcome).toMatchObject({ ok: false, status: null, failure: 'connect', error: expect.stringMatching(/closed|reset/) });
  });

  it('reports a refused connection as a failure instead of throwing', async () => {
    const port = await closedPort();
    const outcome = await trustingSender({ devResolve: new Map([['hooks.test', { address: '127.0.0.1', port }]]) }).send(delivery());
    expect(outcome).toMatchObject({ ok: false, status: null, failure: 'connect', error: 'connection refused (ECONNREFUSED)' });
  });

  it('reports an untrusted certificate as a TLS failure and delivers nothing', async () => {
    sender = createWebhookSender({ config: configFor(devResolveFor(receiver)), logger: quietLogger() });
    const outcome = await sender.send(delivery());
    expect(outcome).toMatchObject({ ok: false, status: null, failure: 'tls' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('reports a certificate that does not name the host as a TLS failure', async () => {
    const outcome = await trustingSender({ devResolve: devResolveFor(receiver, ['unnamed.test']) }).send(
      delivery({ url: 'https://unnamed.test/hook' }),
    );
    expect(outcome).toMatchObject({ ok: false, failure: 'tls', error: expect.stringContaining('ERR_TLS_CERT_ALTNAME_INVALID') });
  });

  it('keeps error texts to one line without a stack', async () => {
    const outcome = await trustingSender({ devResolve: devResolveFor(receiver, ['unnamed.test']) }).send(
      delivery({ url: 'https://unnamed.test/hook' }),
    );
    expect(outcome.ok ? '' : outcome.error).toMatch(/^[^\n]{1,240}$/);
  });
});

describe('addresses at connect time', () => {
  it('refuses an address that breaks the rules without connecting', async () => {
    const outcome = await trustingSender().send(delivery({ url: 'https://hooks.test:8443/' }));
    expect(outcome).toMatchObject({ ok: false, status: null, failure: 'address', error: 'address refused: port 443 only' });
    expect(receiver.connections).toBe(0);
  });

  it('refuses a custom offer-page domain passed with the attempt', async () => {
    const outcome = await trustingSender().send(delivery({ customOfferDomains: ['hooks.test'] }));
    expect(outcome).toMatchObject({ ok: false, failure: 'address' });
    expect(receiver.connections).toBe(0);
  });

  it('does not send to a name that resolved public when added and private when sending (DNS rebinding)', async () => {
    const answers = [['93.184.215.14'], ['127.0.0.1']];
    const resolver: Resolver & { calls: number } = {
      calls: 0,
      async resolve() {
        const address = answers[Math.min(this.calls++, answers.length - 1)]!;
        return address.map((a) => ({ address: a, family: 4 as const }));
      },
    };
    const config = configFor(devResolveFor(receiver));
    const added = await checkEndpointAddress('https://rebind.acme.io/hook', { config, customOfferDomains: [], resolver });
    const outcome = await trustingSender({ resolver }).send(delivery({ url: 'https://rebind.acme.io/hook' }));
    expect([added.ok, outcome]).toEqual([
      true,
      expect.objectContaining({ ok: false, failure: 'address', error: expect.stringContaining('loopback: 127.0.0.1') }),
    ]);
  });

  it('resolves the name exactly once per attempt', async () => {
    const resolver = { calls: 0, async resolve() { this.calls += 1; return [{ address: '10.0.0.1', family: 4 as const }]; } };
    await trustingSender({ resolver }).send(delivery({ url: 'https://rebind.acme.io/hook' }));
    expect(resolver.calls).toBe(1);
  });

  it('connects a mapped name to its mapped address without any DNS lookup', async () => {
    const resolver = { calls: 0, async resolve(): Promise<never> { this.calls += 1; throw new Error('no DNS in this test'); } };
    const outcome = await trustingSender({ resolver }).send(delivery());
    expect([outcome.ok, resolver.calls, receiver.requests.length]).toEqual([true, 0, 1]);
  });
});

describe('connections', () => {
  it('reuses one connection for five sends to the same receiver', async () => {
    const webhooks = trustingSender();
    for (let i = 0; i < 5; i += 1) expect((await webhooks.send(delivery())).ok).toBe(true);
    expect([receiver.requests.length, receiver.connections]).toEqual([5, 1]);
  });

  it('keeps separate connections for names with different checked addresses', async () => {
    const other = await startHttpsReceiver();
    try {
      const webhooks = trustingSender({
        devResolve: new Map([
          ['hooks.test', { address: '127.0.0.1', port: receiver.port }],
          ['other.test', { address: '127.0.0.1', port: other.port }],
        ]),
      });
      await webhooks.send(delivery());
      await webhooks.send(delivery({ url: 'https://other.test/hook' }));
      expect([receiver.requests.length, other.requests.length]).toEqual([1, 1]);
    } finally {
      await other.close();
    }
  });

  it('waits for an attempt in flight when closing', async () => {
    receiver.reply(() => ({ status: 200, delayMs: 150 }));
    const webhooks = trustingSender();
    const pending = webhooks.send(delivery());
    let settled = false;
    void pending.then(() => (settled = true));
    await webhooks.close();
    expect([settled, (await pending).ok]).toEqual([true, true]);
  });

  it('refuses new sends once closing', async () => {
    const webhooks = trustingSender();
    await webhooks.close();
    await expect(webhooks.send(delivery())).rejects.toThrow(/closed/);
  });

  it('warns once at start that the development mapping is on', () => {
    const logger = quietLogger();
    sender = createWebhookSender({ config: configFor(devResolveFor(receiver)), logger });
    expect(logger.warnings).toEqual([expect.stringMatching(/OFFERDESK_WEBHOOK_DEV_RESOLVE is set.*never use this in production/)]);
  });

  it('does not warn when no development mapping is set', () => {
    const logger = quietLogger();
    sender = createWebhookSender({ config: configFor(new Map()), logger });
    expect(logger.warnings).toEqual([]);
  });
});

describe('connection pool keys', () => {
  it('differ when the same name resolves to another address, so no connection outlives its check', () => {
    const before = poolKey('receiver.acme.io', [{ address: '93.184.215.14', family: 4, port: 443 }]);
    const after = poolKey('receiver.acme.io', [{ address: '93.184.215.15', family: 4, port: 443 }]);
    expect(before).not.toBe(after);
  });

  it('include the port of a mapped address', () => {
    const a = poolKey('hooks.test', [{ address: '127.0.0.1', family: 4, port: 8443 }]);
    const b = poolKey('hooks.test', [{ address: '127.0.0.1', family: 4, port: 9443 }]);
    expect(a).not.toBe(b);
  });
});
