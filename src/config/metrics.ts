import { integer, type Env } from './values.js';

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
}

/** The port exporters of the OpenTelemetry Prometheus exporter use by convention. */
export const DEFAULT_METRICS_PORT = 9464;

export function loadMetricsConfig(env: Env): MetricsConfig {
  return {
    port: integer(env, 'OFFERDESK_METRICS_PORT', DEFAULT_METRICS_PORT, 0, 65535),
    portChosen: env.OFFERDESK_METRICS_PORT !== undefined && env.OFFERDESK_METRICS_PORT !== '',
  };
}
