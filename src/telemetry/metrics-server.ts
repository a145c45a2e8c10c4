import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsConfig } from '../config/metrics.js';
import { ConfigError } from '../config/values.js';
import { coerceError, type Logger } from '../log.js';
import { enableProcessMetrics, metricsRegistry } from './metrics.js';

/**
 * `GET /metrics` in Prometheus's text format on a listener of its own (OFFERDESK_METRICS_PORT on
 * HOST, `--metrics-port`), never on the public API's port: the API's clients have no business
 * reading the service's internals, and a scraper reaches it on the operators' network only.
 */
export interface MetricsListener {
  /** The port listened on. */
  port: number;
  close(): Promise<void>;
}

/** A scrape that takes longer than this is cut off (Prometheus's own timeout is 10 s by default). */
const SCRAPE_DEADLINE_MS = 5_000;

/**
 * Starts the listener, or nothing when the port is 0. A port chosen by the operator that is taken
 * stops the start (ConfigError, one line); the default port being taken, by a second process on
 * one host, is logged as a warning naming the fix, and the process runs without it.
 */
export async function startMetricsListener(
  settings: Pick<MetricsConfig, 'port' | 'portChosen'> & { host: string },
  logger: Logger,
): Promise<MetricsListener | undefined> {
  if (settings.port === 0) return undefined;
  enableProcessMetrics();
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: only GET /metrics is served here\n');
      return;
    }
    metricsRegistry
      .metrics()
      .then((text) => {
        res.writeHead(200, { 'content-type': metricsRegistry.contentType, 'cache-control': 'no-store' }).end(text);
      })
      .catch((error: unknown) => {
        logger.error({ err: coerceError(error) }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('collecting metrics failed\n');
      });
  });
  server.requestTimeout = SCRAPE_DEADLINE_MS;
  server.headersTimeout = SCRAPE_DEADLINE_MS;
  try {
    await listen(server, settings.port, settings.host);
  } catch (thrown) {
    const error = coerceError(thrown) as NodeJS.ErrnoException;
    const where = `${settings.host}:${settings.port}`;
    if (error.code === 'EADDRINUSE' && !settings.portChosen) {
      logger.warn(
        { port: settings.port, host: settings.host },
        `metrics not served: the default metrics port ${where} is taken (another offerdesk process?); give each process its own with --metrics-port or OFFERDESK_METRICS_PORT, or 0 to turn it off`,
      );
      return undefined;
    }
    throw new ConfigError(`cannot serve metrics on ${where}: ${error.code ?? error.message} (set --metrics-port or OFFERDESK_METRICS_PORT; 0 turns it off)`);
  }
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: settings.host }, 'metrics served at /metrics');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
