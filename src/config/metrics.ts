import { ConfigError, integer, type Env } from './values.js';

/** Where `GET /metrics` is served (docs/operations.md "Metrics"): a listener of its own, never the API port. */
export interface MetricsConfig {
  /** OFFERDESK_METRICS_PORT, on HOST; 0 turns the listener off. */
  port: number;
  /**
   * Whether the port was chosen (OFFERDESK_METRICS_PORT, or `--metrics-port` later): a chosen port
   * that is taken stops the start; the default one being taken (a second process on one host)
   * only logs a warning, so a developer's second `offerdesk worker` still runs.
   */
  portChosen: boolean;
  /** OTLP export of the same metrics, when an OTLP endpoint is configured; otherwise undefined. */
  otlp: OtlpMetricsConfig | undefined;
}

export interface OtlpMetricsConfig {
  /** The full URL metrics are POSTed to (…/v1/metrics). */
  url: string;
  /** OTEL_METRIC_EXPORT_INTERVAL: how often the values are sent. */
  intervalMs: number;
  /** OTEL_SERVICE_NAME: the resource's service.name. */
  serviceName: string;
}

/** The port exporters of the OpenTelemetry Prometheus exporter use by convention. */
export const DEFAULT_METRICS_PORT = 9464;
/** OpenTelemetry's default export interval (OTEL_METRIC_EXPORT_INTERVAL). */
const DEFAULT_OTLP_INTERVAL_MS = 60_000;

export function loadMetricsConfig(env: Env): MetricsConfig {
  return {
    port: integer(env, 'OFFERDESK_METRICS_PORT', DEFAULT_METRICS_PORT, 0, 65535),
    portChosen: env.OFFERDESK_METRICS_PORT !== undefined && env.OFFERDESK_METRICS_PORT !== '',
    otlp: loadOtlp(env),
  };
}

/**
 * OpenTelemetry's variables: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is used as it is;
 * OTEL_EXPORTER_OTLP_ENDPOINT is a base to which /v1/metrics is appended (the OTLP/HTTP spec).
 */
function loadOtlp(env: Env): OtlpMetricsConfig | undefined {
  const own = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (!own && !base) return undefined;
  const url = own ? httpUrl('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', own) : `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base!).replace(/\/+$/, '')}/v1/metrics`;
  return {
    url,
    intervalMs: integer(env, 'OTEL_METRIC_EXPORT_INTERVAL', DEFAULT_OTLP_INTERVAL_MS, 100, 86_400_000),
    serviceName: env.OTEL_SERVICE_NAME || 'offerdesk',
  };
}

function httpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  return raw;
}
