import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_OUTCOMES, MAIL_OUTCOMES, RATE_LIMITS } from '../../src/telemetry/metrics.js';
import { until } from '../support/until.js';
import { labelValues, valueOf, type Exposition } from './prometheus-text.js';
import { startStack, type Stack } from './stack.js';
import { attribute, metricOf, pointValue, startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

/**
 * GET /metrics of a real `serve` and a separate real `worker` (docs/operations.md "Metrics"):
 * the families with their types, closed label sets, and counters that move by exactly what the
 * test did.
 */

const KEY_LIMIT = 3;
let stack: Stack;
let otlp: OtlpReceiver;

beforeAll(async () => {
  // Both processes also export the same metrics over OTLP, every half second, to a real endpoint.
  otlp = await startOtlpReceiver();
  stack = await startStack({ rateLimitPerKey: KEY_LIMIT, env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_METRIC_EXPORT_INTERVAL: '500' } });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await otlp?.close();
});

const FAMILIES: Record<string, string> = {
  http_server_request_duration_seconds: 'histogram',
  offerdesk_webhook_attempts_total: 'counter',
  offerdesk_webhook_attempt_duration_seconds: 'histogram',
  offerdesk_webhook_delivery_lag_seconds: 'histogram',
  offerdesk_webhook_end_to_end_seconds: 'histogram',
  offerdesk_webhook_deliveries: 'gauge',
  offerdesk_webhook_oldest_due_seconds: 'gauge',
  offerdesk_outbox_events_waiting: 'gauge',
  offerdesk_webhook_endpoints: 'gauge',
  offerdesk_rate_limited_total: 'counter',
  offerdesk_mail_sent_total: 'counter',
  // The runtime's own (prom-client's default metrics).
  process_cpu_seconds_total: 'counter',
  nodejs_heap_size_used_bytes: 'gauge',
  nodejs_eventloop_lag_p99_seconds: 'gauge',
};

/** prom-client names a counter's family without `_total` in its TYPE line. */
function typeOf(exposition: Exposition, family: string): string | undefined {
  return exposition.types.get(family) ?? exposition.types.get(family.replace(/_total$/, ''));
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

async function api(path: string, key?: string): Promise<number> {
  const response = await fetch(`${stack.apiOrigin}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  await response.arrayBuffer();
  return response.status;
}

describe('GET /metrics of serve and worker', { timeout: 60_000 }, () => {
  it('is served on its own port, never on the API port', async () => {
    expect(await api('/metrics')).toBe(404);
    const elsewhere = await fetch(`http://127.0.0.1:${stack.serverMetricsPort}/api/v1/workspace`);
    expect(elsewhere.status).toBe(404);
    const served = await fetch(`http://127.0.0.1:${stack.serverMetricsPort}/metrics`);
    expect(served.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('exports every family with its type, from both processes', async () => {
    await api('/api/v1/workspace', stack.spareKey);
    for (const port of [stack.serverMetricsPort, stack.workerMetricsPort]) {
      const exposition = await stack.scrape(port);
      for (const [family, type] of Object.entries(FAMILIES)) {
        expect({ port, family, type: typeOf(exposition, family) }).toEqual({ port, family, type });
      }
    }
    // The gauge exists once the worker's first round has ended; on a loaded machine that round
    // may end after the process reports ready.
    await expect
      .poll(async () => typeOf(await stack.scrape(stack.workerMetricsPort), 'offerdesk_worker_last_round_timestamp_seconds'), { timeout: 30_000, interval: 250 })
      .toBe('gauge');
    const worker = await stack.scrape(stack.workerMetricsPort);
    expect(valueOf(worker, 'offerdesk_worker_last_round_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 60);
    // serve --no-worker has no worker: no liveness sample that would read as "silent".
    const server = await stack.scrape(stack.serverMetricsPort);
    expect(server.samples.some((s) => s.name === 'offerdesk_worker_last_round_timestamp_seconds')).toBe(false);
  });

  it('counts three 2xx deliveries and one 500 as exactly 3 success and 1 http_error', async () => {
    const before = await stack.scrape(stack.workerMetricsPort);
    const start = stack.receiver.requests.length;
    // The third request of the four answers 500; the others 200.
    stack.receiver.reply((_, index) => (index === start + 2 ? { status: 500, body: 'no' } : { status: 200, body: 'ok' }));
    await stack.sendOffers(4);
    await until(async () => {
      const [row] = await stack.db.sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts`;
      return row!.n >= 4;
    }, 30_000, 'four attempts recorded', 100);
    // Attempts are counted before their outcome is written, end-to-end times just after it: a
    // bounded wait for the last of them, then every count must be exact (nothing counted twice).
    let after!: Exposition;
    const moved = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    await until(async () => {
      after = await stack.scrape(stack.workerMetricsPort);
      return moved('offerdesk_webhook_end_to_end_seconds_count') >= 3;
    }, 10_000, 'three end-to-end times', 100);

    const byOutcome = Object.fromEntries(ATTEMPT_OUTCOMES.map((outcome) => [outcome, moved('offerdesk_webhook_attempts_total', { outcome })]));
    expect(byOutcome).toEqual({ ...Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, 0])), success: 3, http_error: 1 });
    expect(moved('offerdesk_webhook_attempt_duration_seconds_count', { outcome: 'success' })).toBe(3);
    expect(moved('offerdesk_webhook_attempt_duration_seconds_count', { outcome: 'http_error' })).toBe(1);
    expect(moved('offerdesk_webhook_delivery_lag_seconds_count')).toBe(4);
    // End to end: the three delivered events, each from its commit to its 2xx (well under a minute here).
    expect(moved('offerdesk_webhook_end_to_end_seconds_count')).toBe(3);
    expect(moved('offerdesk_webhook_end_to_end_seconds_sum')).toBeGreaterThan(0);
    expect(moved('offerdesk_webhook_end_to_end_seconds_sum')).toBeLessThan(3 * 60);
    expect(moved('offerdesk_webhook_end_to_end_seconds_bucket', { le: '60' })).toBe(3);
    // The API process attempts nothing.
    const server = await stack.scrape(stack.serverMetricsPort);
    expect(ATTEMPT_OUTCOMES.map((outcome) => valueOf(server, 'offerdesk_webhook_attempts_total', { outcome }))).toEqual(ATTEMPT_OUTCOMES.map(() => 0));
  }, 60_000);

  it("reports the queue from the worker's snapshot, the same in every process", async () => {
    // The 500 above left one delivery scheduled for its retry in a minute; one endpoint, active.
    let worker!: Exposition;
    await until(async () => {
      worker = await stack.scrape(stack.workerMetricsPort);
      return valueOf(worker, 'offerdesk_webhook_deliveries', { state: 'scheduled' }) === 1;
    }, 40_000, 'the snapshot to show the scheduled retry', 500);
    expect(valueOf(worker, 'offerdesk_webhook_deliveries', { state: 'waiting' })).toBe(0);
    expect(valueOf(worker, 'offerdesk_webhook_deliveries', { state: 'in_flight' })).toBe(0);
    expect(valueOf(worker, 'offerdesk_webhook_endpoints', { state: 'active' })).toBe(1);
    expect(valueOf(worker, 'offerdesk_webhook_endpoints', { state: 'paused' })).toBe(0);
    expect(valueOf(worker, 'offerdesk_webhook_oldest_due_seconds')).toBe(0);
    expect(valueOf(worker, 'offerdesk_outbox_events_waiting')).toBe(0);
    const server = await stack.scrape(stack.serverMetricsPort);
    for (const state of ['waiting', 'scheduled', 'in_flight']) {
      expect(valueOf(server, 'offerdesk_webhook_deliveries', { state })).toBe(valueOf(worker, 'offerdesk_webhook_deliveries', { state }));
    }
    expect(valueOf(server, 'offerdesk_queue_snapshot_timestamp_seconds')).toBe(valueOf(worker, 'offerdesk_queue_snapshot_timestamp_seconds'));
  }, 60_000);

  it('counts API requests by operationId and status, and 429s by the limit that refused them', async () => {
    const before = await stack.scrape(stack.serverMetricsPort);
    const statuses: number[] = [];
    for (let i = 0; i <= KEY_LIMIT; i++) statuses.push(await api('/api/v1/workspace', stack.ws.key));
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await api('/api/v1/no-such-thing', stack.spareKey)).toBe(404);
    expect(await api('/healthz')).toBe(200);
    const after = await stack.scrape(stack.serverMetricsPort);
    const moved = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    const count = 'http_server_request_duration_seconds_count';
    expect(moved(count, { http_request_method: 'GET', http_route: 'getWorkspace', http_response_status_code: '200' })).toBe(3);
    expect(moved(count, { http_request_method: 'GET', http_route: 'getWorkspace', http_response_status_code: '429' })).toBe(1);
    expect(moved(count, { http_request_method: 'GET', http_route: 'unmatched', http_response_status_code: '404' })).toBe(1);
    expect(moved(count, { http_request_method: 'GET', http_route: '/healthz', http_response_status_code: '200' })).toBe(1);
    expect(moved('offerdesk_rate_limited_total', { limit: 'key' })).toBe(1);
    expect(moved('offerdesk_rate_limited_total', { limit: 'ip' })).toBe(0);
  });

  it('keeps every label to a closed set: no ids, no paths', async () => {
    // Made-up paths and methods must not become label values.
    await api('/api/v1/offers/00000000-0000-4000-8000-000000000000', stack.spareKey);
    await api(`/api/v1/${'x'.repeat(40)}`, stack.spareKey);
    await fetch(`${stack.apiOrigin}/console/whatever-${Date.now()}`);
    await fetch(`${stack.apiOrigin}/healthz`, { method: 'PROPFIND' });
    for (const port of [stack.serverMetricsPort, stack.workerMetricsPort]) {
      const exposition = await stack.scrape(port);
      for (const sample of exposition.samples) {
        for (const value of Object.values(sample.labels)) expect(value, sample.name).not.toMatch(UUID);
      }
      const routes = labelValues(exposition, 'http_server_request_duration_seconds_count', 'http_route');
      for (const route of routes) expect(route).toMatch(/^([a-z][A-Za-z]+|unmatched|\/healthz|\/readyz|\/docs|\/console)$/);
      expect([...labelValues(exposition, 'http_server_request_duration_seconds_count', 'http_request_method')].every((m) => /^([A-Z]+|_OTHER)$/.test(m))).toBe(true);
      expect(labelValues(exposition, 'offerdesk_webhook_attempts_total', 'outcome')).toEqual(new Set(ATTEMPT_OUTCOMES));
      expect(labelValues(exposition, 'offerdesk_rate_limited_total', 'limit')).toEqual(new Set(RATE_LIMITS));
      expect(labelValues(exposition, 'offerdesk_mail_sent_total', 'outcome')).toEqual(new Set(MAIL_OUTCOMES));
      expect(labelValues(exposition, 'offerdesk_webhook_deliveries', 'state')).toEqual(new Set(['waiting', 'scheduled', 'in_flight']));
      expect(labelValues(exposition, 'offerdesk_webhook_endpoints', 'state')).toEqual(new Set(['active', 'paused']));
    }
    const server = await stack.scrape(stack.serverMetricsPort);
    expect(labelValues(server, 'http_server_request_duration_seconds_count', 'http_route')).toContain('/console');
    expect(labelValues(server, 'http_server_request_duration_seconds_count', 'http_request_method')).toContain('_OTHER');
  });

  it("exports the worker's numbers over OTLP as well", async () => {
    const worker = await stack.scrape(stack.workerMetricsPort);
    const expected = { success: valueOf(worker, 'offerdesk_webhook_attempts_total', { outcome: 'success' }), http_error: valueOf(worker, 'offerdesk_webhook_attempts_total', { outcome: 'http_error' }) };
    expect(expected.success).toBeGreaterThanOrEqual(3);
    // The worker's exports are the ones with its liveness gauge; the latest must carry the same counts.
    await until(() => {
      const latest = otlp.exports.filter((e) => metricOf(e, 'offerdesk_worker_last_round_timestamp_seconds')).at(-1);
      const points = latest && metricOf(latest, 'offerdesk_webhook_attempts')?.sum?.dataPoints;
      if (!points) return false;
      const got = Object.fromEntries(points.map((p) => [attribute(p, 'outcome'), pointValue(p)]));
      return got.success === expected.success && got.http_error === expected.http_error;
    }, 10_000, 'an OTLP export with the counts /metrics shows', 100);
    // The API process exports too (its HTTP histogram).
    expect(otlp.exports.some((e) => metricOf(e, 'http_server_request_duration_seconds'))).toBe(true);
  });
});
