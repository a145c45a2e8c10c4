import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createAccount, createWorkspace } from '../../src/domain/accounts.js';
import { createOffer } from '../../src/domain/offer-actions.js';
import { setPassword } from '../../src/domain/passwords.js';
import { createHttpServer } from '../../src/http-server.js';
import { createLogger } from '../../src/log.js';
import { projectRoot } from '../../src/paths.js';
import { createApp } from '../../src/service/app.js';
import { startTracing, tracedDeps, tracedSql, withSpan, type Tracing } from '../../src/telemetry/tracing.js';
import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { startWorker, type RunningWorker } from '../../src/host/worker.js';
import { createWebhookSender } from '../../src/webhooks/transport/sender.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { devResolveEnv, startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { until } from '../support/until.js';

/**
 * Tracing end to end (docs/operations.md "Tracing"): the service in this process with tracing on,
 * exporting to an OTLP/HTTP receiver on a socket; the CLI as a real process exporting to the same
 * receiver; the real worker delivering to a real HTTPS receiver. One trace view must lead from
 * "offer sent" to each attempt through span links, log lines must carry the trace, and no
 * attribute may hold a secret.
 */

const PASSWORD = 'tracing test password 9f3k';
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

let otlp: OtlpReceiver;
let hooks: HttpsReceiver;
let db: TestDatabase;
let config: Config;
let env: Record<string, string>;
let tracing: Tracing;
let server: Server;
let closeApp: () => Promise<void>;
let worker: RunningWorker;
let origin: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  hooks = await startHttpsReceiver();
  env = {
    OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'),
    OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolveEnv(hooks),
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'offerdesk-tracing-test',
    // Nothing here starts a trace of its own: a request is traced when its caller's traceparent
    // says so, and the fan-out and attempts (roots) only by following a sampled link.
    OTEL_TRACES_SAMPLER: 'parentbased_always_off',
  };
  config = loadConfig(env);
  // Before the pool, the logger and the app, as `serve` does.
  tracing = await startTracing(config.tracing);
  db = await freshDatabase();
  const logger = createLogger('info', 'offerdesk', { write: (line: string) => void logLines.push(JSON.parse(line)) });
  const app = await createApp({ sql: db.sql, config, clock: systemClock, logger });
  closeApp = app.close;
  server = createHttpServer(app.app, config.http, app.classes);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sender = createWebhookSender({ config: config.webhooks, tls: { ca: hooks.caPem } });
  worker = await startWorker({ sql: db.sql, databaseUrl: db.url, config, clock: systemClock, logger, sender });
});

afterAll(async () => {
  await worker?.stop();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await closeApp?.();
  await tracing?.shutdown();
  await db?.drop();
  await hooks?.close();
  await otlp?.close();
});

function cli(args: string[], extraEnv: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--import', './test/observability/record-modules.mjs', 'src/cli/main.ts', ...args],
      { cwd: projectRoot, env: { ...process.env, ...extraEnv }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A W3C traceparent of a new sampled trace, as a traced caller sends it. */
function callerTrace(): { traceId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
}

/** A signed-in console client: it keeps the session cookie, sends the console's Origin and a sampled traceparent. */
function consoleClient() {
  let cookie = '';
  return {
    get cookie() {
      return cookie;
    },
    async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
      // Without OFFERDESK_PUBLIC_URL the console's own origin is localhost on the port it listens on.
      const headers: Record<string, string> = { origin: origin.replace('127.0.0.1', 'localhost'), traceparent: callerTrace().traceparent };
      if (cookie) headers.cookie = cookie;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${origin}/console/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const set = response.headers.getSetCookie().find((c) => c.startsWith('offerdesk_session='));
      if (set) cookie = set.split(';')[0]!;
      return { status: response.status, body: await response.json() };
    },
  };
}

const linksTo = (span: ReceivedSpan, target: ReceivedSpan) => span.links.some((l) => l.traceId === target.traceId && l.spanId === target.spanId);
const named = (name: string) => otlp.spans.filter((s) => s.name === name);
const childrenOf = (parent: ReceivedSpan) => otlp.spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);

describe('tracing on', () => {
  const secrets: string[] = [PASSWORD];
  let workspaceId: string;
  let offerId: string;
  let apiKey: string;

  it('leads from the CLI action that sends an offer and the console request that tests an endpoint to each delivery attempt', async () => {
    const email = `owner-${randomBytes(3).toString('hex')}@agency.example`;
    const { id: ownerId } = await createAccount(db.sql, systemClock, { email, name: 'Owner' });
    await setPassword(db.sql, systemClock, { accountId: ownerId, password: PASSWORD });
    ({ id: workspaceId } = await createWorkspace(db.sql, systemClock, { name: 'Traced', timezone: 'UTC', currency: 'EUR', ownerAccountId: ownerId }));

    const client = consoleClient();
    expect((await client.call('POST', '/session', { email, password: PASSWORD })).status).toBe(200);
    secrets.push(client.cookie.split('=')[1]!);
    const key = await client.call('POST', `/workspaces/${workspaceId}/api-keys`, { name: 'traced key' });
    expect(key.status).toBe(201);
    apiKey = key.body.data.value;
    secrets.push(apiKey);
    const endpoint = await client.call('POST', `/workspaces/${workspaceId}/endpoints`, {
      url: 'https://hooks.test/incoming?token=query-secret-4711',
      events: ['offer.sent'],
    });
    expect(endpoint.status).toBe(201);
    secrets.push(endpoint.body.data.secret, endpoint.body.data.secret.replace(/^whsec_/, ''), 'query-secret-4711', '/incoming');

    const caller = callerTrace();
    const list = await fetch(`${origin}/api/v1/offers?limit=5`, { headers: { authorization: `Bearer ${apiKey}`, traceparent: caller.traceparent } });
    expect(list.status).toBe(200);

    // The offer is sent by the CLI, a separate process exporting its own spans.
    ({ id: offerId } = await createOffer(db.sql, systemClock, { workspaceId, title: 'Traced offer' }));
    const expires = new Date(Date.now() + 7 * 24 * 3600_000).toISOString();
    const sent = await cli(['offer', 'send', offerId, '--recipient-email', 'bea@client.test', '--expires-at', expires, '--json'], {
      ...env,
      OTEL_TRACES_SAMPLER: 'always_on',
      DATABASE_URL: db.url,
    });
    expect(sent, sent.stderr).toMatchObject({ code: 0, stderr: '' });
    await until(() => hooks.requests.length >= 1, 15_000, 'the offer.sent webhook');
    const ping = await client.call('POST', `/workspaces/${workspaceId}/endpoints/${endpoint.body.data.id}/test`);
    expect(ping.status).toBe(202);
    await until(() => hooks.requests.length >= 2, 15_000, 'the ping webhook');
    await until(
      async () => (await db.sql`select 1 from webhook_deliveries where status <> 'succeeded'`).length === 0,
      15_000,
      'both outcomes recorded',
    );
    for (const request of hooks.requests) {
      secrets.push(request.body.toString('utf8'), request.headers['webhook-signature']!, request.headers['webhook-signature']!.slice(3));
    }
    await tracing.flush();

    // The CLI command's span, and the traceparent its transaction stored with the event.
    const [command] = named('offerdesk offer send');
    expect(command, 'the CLI exported its span').toBeDefined();
    expect(command!.resource['service.name']).toBe('offerdesk-tracing-test');
    const [stored] = await db.sql<{ traceparent: string }[]>`select traceparent from webhook_messages where type = 'offer.sent'`;
    expect(stored!.traceparent).toBe(`00-${command!.traceId}-${command!.spanId}-01`);
    const statements = childrenOf(command!).map((s) => String(s.attributes['db.query.text'] ?? ''));
    expect(statements.some((text) => text.includes('insert into webhook_outbox'))).toBe(true);

    // The fan-out: a trace of its own, linked to the command, its statements inside it; sampled
    // (this process's sampler keeps no root) because the span it links to was.
    const fanOut = named('webhook fan-out').find((s) => linksTo(s, command!));
    expect(fanOut, 'a fan-out span linked to the CLI span').toBeDefined();
    expect(fanOut!.traceId).not.toBe(command!.traceId);
    expect(childrenOf(fanOut!).some((s) => String(s.attributes['db.query.text']).includes('insert into webhook_messages'))).toBe(true);

    // Each attempt of the event: a client span linked to the command, with its outcome.
    const attempts = named('webhook attempt').filter((s) => linksTo(s, command!));
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!).toMatchObject({
      kind: SPAN_KIND_CLIENT,
      attributes: expect.objectContaining({
        'server.address': 'hooks.test',
        'http.response.status_code': 200,
        'offerdesk.delivery.outcome': 'delivered',
        'offerdesk.delivery.attempt': 1,
      }),
    });

    // The console request: a server span named by its operation, whose ping attempt links to it.
    const [test] = named('testEndpoint');
    expect(test).toMatchObject({
      kind: SPAN_KIND_SERVER,
      attributes: expect.objectContaining({
        'http.route': '/console/api/workspaces/{workspaceId}/endpoints/{endpointId}/test',
        'http.request.method': 'POST',
        'http.response.status_code': 202,
      }),
    });
    expect(childrenOf(test!).some((s) => s.attributes['db.system.name'] === 'postgresql')).toBe(true);
    expect(named('webhook attempt').filter((s) => linksTo(s, test!))).toHaveLength(1);

    // The API request: named by its operationId, its one read statement inside it.
    const [read] = named('listOffers');
    expect(read).toMatchObject({ kind: SPAN_KIND_SERVER, traceId: caller.traceId, attributes: expect.objectContaining({ 'http.route': '/api/v1/offers' }) });
    expect(childrenOf(read!).some((s) => s.name === 'SELECT' && String(s.attributes['db.query.text']).includes('from offers'))).toBe(true);
  }, 90_000);

  it('never enters a context: spans are handed on by value, so no AsyncLocalStorage hook is ever turned on', () => {
    // On Node 20 a context entered once turns on promise hooks for the whole process (tracing.ts
    // withSpan). With no context manager registered, entering one keeps nothing.
    const key = createContextKey('probe');
    expect(context.with(ROOT_CONTEXT.setValue(key, 'entered'), () => context.active().getValue(key))).toBeUndefined();
    // The spans above still nest: every statement span has its parent in the same trace.
    const statements = otlp.spans.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(5);
    for (const statement of statements) {
      expect(otlp.spans.some((s) => s.traceId === statement.traceId && s.spanId === statement.parentSpanId), statement.name).toBe(true);
    }
  });

  it('hands work the sampler left out a handle built like a sampled one, which traces none of its statements', async () => {
    // tracing.ts tracedSql: with tracing on, sampled or not, the same kind of handle, so that a
    // hot path is never handed two kinds (V8 stops inlining through it; its cost was measured).
    const unsampled = tracedSql(db.sql, undefined);
    expect(unsampled).not.toBe(db.sql);
    expect(tracedSql(db.sql, undefined)).toBe(unsampled);
    const deps = { sql: db.sql, clock: systemClock };
    expect(tracedDeps(deps, undefined)).toBe(tracedDeps(deps, undefined));
    expect(tracedDeps(deps, undefined).sql).toBe(unsampled);

    // A root linked to a sampled trace is sampled (tracing-sdk.ts FollowLinksSampler).
    const sampled = await withSpan('probe', { links: [callerTrace().traceparent] }, async (span) => {
      expect(span?.isRecording()).toBe(true);
      const handle = tracedSql(db.sql, span);
      expect(Object.keys(handle)).toEqual(Object.keys(unsampled));
      expect(Object.getOwnPropertySymbols(handle)).toEqual(Object.getOwnPropertySymbols(unsampled));
      expect(Object.getPrototypeOf(handle)).toBe(Object.getPrototypeOf(unsampled));
      await handle`select 1 as sampled_probe`;
      await handle.begin((tx) => tx`select 1 as sampled_probe_in_transaction`);
      return span;
    });
    await unsampled`select 1 as unsampled_probe`;
    await unsampled.begin((tx) => tx`select 1 as unsampled_probe_in_transaction`);
    await tracing.flush();
    const withText = (text: string) => otlp.spans.filter((s) => s.attributes['db.query.text'] === text);
    await until(() => withText('select 1 as sampled_probe_in_transaction').length === 1, 10_000, 'the sampled statements exported');
    expect(withText('select 1 as sampled_probe')).toMatchObject([{ parentSpanId: sampled!.spanContext().spanId }]);
    expect(withText('select 1 as unsampled_probe')).toEqual([]);
    expect(withText('select 1 as unsampled_probe_in_transaction')).toEqual([]);
  });

  it('writes the trace and span id into every log line written inside a span', () => {
    const [read] = named('listOffers');
    const line = logLines.find((l) => l.msg === 'request' && l.path === '/offers');
    expect(line).toMatchObject({ trace_id: read!.traceId, span_id: read!.spanId });
    const inSpans = logLines.filter((l) => l.msg === 'request');
    expect(inSpans.length).toBeGreaterThanOrEqual(5);
    for (const l of inSpans) expect(l.trace_id, JSON.stringify(l)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('puts no key, token, secret, signature, cookie or body into any span', () => {
    expect(otlp.unreadable).toBe(0);
    const texts: string[] = [];
    for (const span of otlp.spans) {
      texts.push(span.name, JSON.stringify(span.attributes), JSON.stringify(span.resource), JSON.stringify(span.events));
      texts.push(JSON.stringify(span.links), span.status.message ?? '');
    }
    const all = texts.join('\n');
    expect(secrets.length).toBeGreaterThanOrEqual(10);
    for (const secret of secrets) expect(all.includes(secret), `span data holds ${secret.slice(0, 12)}...`).toBe(false);
    for (const forbidden of ['bea@client.test', 'Traced offer', 'Bearer ']) {
      expect(all.toLowerCase().includes(forbidden.toLowerCase()), forbidden).toBe(false);
    }
  });
});

describe('tracing off', () => {
  it('does not load the OpenTelemetry SDK, or any OpenTelemetry package, in a command', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'offerdesk-modules-'));
    const run = async (extra: Record<string, string>) => {
      const file = join(dir, `${Object.keys(extra).length}.txt`);
      const result = await cli(['jobs', 'run', 'expire-offers', '--json'], { DATABASE_URL: db.url, RECORD_MODULES_FILE: file, ...extra });
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      return (await readFile(file, 'utf8')).split('\n');
    };
    const off = await run({});
    expect(off.some((url) => url.includes('/src/telemetry/tracing.ts'))).toBe(true);
    expect(off.filter((url) => url.includes('@opentelemetry'))).toEqual([]);
    // The same command with tracing on loads the SDK: the recording does see it when it happens.
    const before = otlp.spans.length;
    const on = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect(on.some((url) => url.includes('@opentelemetry/sdk-trace-node'))).toBe(true);
    expect(otlp.spans.slice(before).some((s) => s.name === 'offerdesk jobs run')).toBe(true);
  }, 90_000);
});
