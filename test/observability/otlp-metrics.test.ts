import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { loadConfig } from '../../src/config.js';
import { metricsRegistry, observeWebhookAttempt } from '../../src/telemetry/metrics.js';
import { startOtlpMetrics } from '../../src/telemetry/metrics-otlp.js';
import { until } from '../support/until.js';
import { attribute, metricOf, pointValue, startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';
import { parseExposition, valueOf } from './prometheus-text.js';

/**
 * OTLP export of the metrics (docs/operations.md "OTLP"): the same registry /metrics serves, sent
 * to a real OTLP/HTTP endpoint on loopback: the same names (counters without `_total`), labels,
 * values and histogram buckets.
 */

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe('OTLP export of the metrics', () => {
  it('is configured by OpenTelemetry variables, and refuses a URL that is not one', () => {
    expect(loadConfig({}).metrics.otlp).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).metrics.otlp).toEqual({
      url: 'http://collector:4318/v1/metrics',
      intervalMs: 60_000,
      serviceName: 'offerdesk',
    });
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://b/m', OTEL_METRIC_EXPORT_INTERVAL: '5000', OTEL_SERVICE_NAME: 'od' })
        .metrics.otlp,
    ).toEqual({ url: 'https://b/m', intervalMs: 5000, serviceName: 'od' });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL/);
  });

  it('sends the values /metrics shows: counters, gauges and histograms with their buckets', async () => {
    observeWebhookAttempt('success', 0.2);
    observeWebhookAttempt('success', 3);
    observeWebhookAttempt('timeout', 10.5);
    const exposition = parseExposition(await metricsRegistry.metrics());
    const otlp = startOtlpMetrics({ url: `${receiver.endpoint}/v1/metrics`, intervalMs: 60_000, serviceName: 'offerdesk-test' }, createLogger('silent'));
    await otlp.flush();
    await otlp.close();
    // One export from flush and one from close, both with the values above (nothing moved between).
    expect(receiver.exports).toHaveLength(2);
    const [exported] = receiver.exports;
    expect(exported!.resourceMetrics[0]!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'offerdesk-test' } });

    const attempts = metricOf(exported!, 'offerdesk_webhook_attempts')!;
    expect(attempts.sum!.isMonotonic).toBe(true);
    const byOutcome = Object.fromEntries(attempts.sum!.dataPoints.map((p) => [attribute(p, 'outcome'), pointValue(p)]));
    for (const outcome of ['success', 'timeout', 'http_error']) {
      expect(byOutcome[outcome]).toBe(valueOf(exposition, 'offerdesk_webhook_attempts_total', { outcome }));
    }
    expect(byOutcome.success).toBeGreaterThanOrEqual(2);

    const durations = metricOf(exported!, 'offerdesk_webhook_attempt_duration_seconds')!.histogram!.dataPoints;
    const timeout = durations.find((p) => attribute(p, 'outcome') === 'timeout')!;
    expect(timeout.explicitBounds).toEqual([0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 7.5, 10, 15]);
    expect(Number(timeout.count)).toBe(valueOf(exposition, 'offerdesk_webhook_attempt_duration_seconds_count', { outcome: 'timeout' }));
    // Per-bucket counts (not cumulative): the 10.5 s attempt is in (10, 15].
    const counts = timeout.bucketCounts.map(Number);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(Number(timeout.count));
    expect(counts[10]).toBe(valueOf(exposition, 'offerdesk_webhook_attempt_duration_seconds_bucket', { outcome: 'timeout', le: '15' }) - valueOf(exposition, 'offerdesk_webhook_attempt_duration_seconds_bucket', { outcome: 'timeout', le: '10' }));
    expect(counts[10]).toBeGreaterThanOrEqual(1);
    expect(timeout.sum).toBeCloseTo(valueOf(exposition, 'offerdesk_webhook_attempt_duration_seconds_sum', { outcome: 'timeout' }));

    const rateLimited = metricOf(exported!, 'offerdesk_rate_limited');
    expect(rateLimited?.sum?.dataPoints.map((p) => attribute(p, 'limit')).sort()).toEqual(['ip', 'key']);
  });

  it('keeps running when the collector is away, and logs it', async () => {
    const lines: string[] = [];
    const { pino } = await import('pino');
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const otlp = startOtlpMetrics({ url: 'http://127.0.0.1:1/v1/metrics', intervalMs: 1_000, serviceName: 'offerdesk' }, logger);
    await otlp.flush();
    await until(() => lines.some((line) => line.includes('exporting metrics over OTLP failed')), 10_000, 'the warning');
    await otlp.close();
  });
});
