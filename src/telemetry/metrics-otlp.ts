import { ValueType, type HrTime } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { OtlpMetricsConfig } from '../config/metrics.js';
import { coerceError, type Logger } from '../log.js';
import { metricsRegistry } from './metrics.js';

/**
 * OTLP export of the same numbers /metrics serves (docs/operations.md "OTLP"): every interval,
 * prom-client's registry is read once and sent as OTLP metrics over HTTP, so one set of
 * instruments feeds both and the two can never disagree. Counters become monotonic cumulative
 * sums named without `_total` (OpenTelemetry's Prometheus compatibility rules add it back),
 * gauges gauges, histograms explicit-bucket histograms with the same bounds.
 */
export interface OtlpMetrics {
  /** Sends the registry's current values now (also called at close). */
  flush(): Promise<void>;
  /** Stops the interval, sends a last time, and closes the exporter. */
  close(): Promise<void>;
}

const SCOPE = { name: 'offerdesk' };
/** An export (retries included) gives up after this, or after the interval if that is shorter. */
const EXPORT_TIMEOUT_MS = 10_000;

export function startOtlpMetrics(settings: OtlpMetricsConfig, logger: Logger): OtlpMetrics {
  const exporter = new OTLPMetricExporter({ url: settings.url, timeoutMillis: Math.min(EXPORT_TIMEOUT_MS, settings.intervalMs) });
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName });
  const startTime = hrTime(Date.now() - process.uptime() * 1000);
  let inFlight: Promise<void> | undefined;

  const exportOnce = (): Promise<void> => {
    // One export at a time: a slow collector skips rounds rather than piling them up.
    inFlight ??= (async () => {
      try {
        const metrics = toOtlp(await metricsRegistry.getMetricsAsJSON(), startTime, hrTime(Date.now()));
        const data: ResourceMetrics = { resource, scopeMetrics: [{ scope: SCOPE, metrics }] };
        const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(data, resolve));
        if (result.code !== 0) logger.warn({ err: result.error, url: settings.url }, 'exporting metrics over OTLP failed');
      } catch (thrown) {
        logger.warn({ err: coerceError(thrown), url: settings.url }, 'exporting metrics over OTLP failed');
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  const timer = setInterval(() => void exportOnce(), settings.intervalMs);
  timer.unref();
  logger.info({ url: settings.url, intervalMs: settings.intervalMs }, 'exporting metrics over OTLP');
  return {
    flush: exportOnce,
    async close() {
      clearInterval(timer);
      await inFlight;
      await exportOnce();
      await exporter.shutdown();
    },
  };
}

type Family = Awaited<ReturnType<typeof metricsRegistry.getMetricsAsJSON>>[number];
type Labels = Record<string, string | number>;

/** prom-client's families as OTLP metric data (summaries, which Offerdesk does not make, are left out). */
export function toOtlp(families: Family[], startTime: HrTime, endTime: HrTime): MetricData[] {
  const out: MetricData[] = [];
  for (const family of families) {
    const descriptor = { name: family.name, description: family.help, unit: '', valueType: ValueType.DOUBLE };
    const point = (labels: Labels, value: number) => ({ startTime, endTime, attributes: labels, value });
    // prom-client's typings say a numeric enum; at run time the type is its name ('counter', ...).
    const type = family.type as unknown as string;
    if (type === 'counter') {
      out.push({
        descriptor: { ...descriptor, name: family.name.replace(/_total$/, '') },
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints: family.values.map((v) => point(v.labels as Labels, v.value)),
      });
    } else if (type === 'gauge') {
      out.push({
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.GAUGE,
        dataPoints: family.values.map((v) => point(v.labels as Labels, v.value)),
      });
    } else if (type === 'histogram') {
      out.push({
        descriptor,
        aggregationTemporality: AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints: histogramPoints(family, startTime, endTime),
      });
    }
  }
  return out;
}

/** One point per label set: prom-client's cumulative `le` buckets turned into per-bucket counts. */
function histogramPoints(family: Family, startTime: HrTime, endTime: HrTime) {
  const series = new Map<string, { labels: Labels; cumulative: Map<number, number>; sum: number; count: number }>();
  for (const v of family.values as { value: number; labels: Labels; metricName?: string }[]) {
    const { le, ...labels } = v.labels;
    const key = JSON.stringify(Object.entries(labels).sort());
    let entry = series.get(key);
    if (!entry) series.set(key, (entry = { labels, cumulative: new Map(), sum: 0, count: 0 }));
    if (v.metricName === `${family.name}_sum`) entry.sum = v.value;
    else if (v.metricName === `${family.name}_count`) entry.count = v.value;
    else if (le !== undefined && le !== '+Inf') entry.cumulative.set(Number(le), v.value);
  }
  return [...series.values()].map((entry) => {
    const boundaries = [...entry.cumulative.keys()].sort((a, b) => a - b);
    const cumulative = boundaries.map((bound) => entry.cumulative.get(bound)!);
    const counts = [...cumulative, entry.count].map((total, i) => total - (i === 0 ? 0 : cumulative[i - 1]!));
    return { startTime, endTime, attributes: entry.labels, value: { buckets: { boundaries, counts }, sum: entry.sum, count: entry.count } };
  });
}

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}
