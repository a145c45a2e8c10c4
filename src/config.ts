import { join, resolve } from 'node:path';
import {
  loadHttpLimits,
  loadRedisTimeouts,
  publicUrl,
  trustProxy,
  type HttpLimits,
  type ReadinessConfig,
  type RedisTimeouts,
} from './config/http.js';
import { loadMetricsConfig, type MetricsConfig } from './config/metrics.js';
import { loadMailConfig, type MailConfig } from './config/mail.js';
import { boolean, ConfigError, integer, oneOf, type Env } from './config/values.js';
import { loadTracingConfig, type TracingConfig } from './config/tracing.js';
import { loadWebhookConfig, type WebhookConfig } from './config/webhooks.js';
import { projectRoot } from './paths.js';

export { ConfigError } from './config/values.js';
export type { TracingConfig } from './config/tracing.js';
export type { HttpLimits, ReadinessConfig, RedisTimeouts } from './config/http.js';
export { DEFAULT_METRICS_PORT, type MetricsConfig } from './config/metrics.js';
export { DEFAULT_MAIL_FROM, MAIL_MODES, type MailConfig, type MailMode } from './config/mail.js';
export { DEFAULT_BLOCKED_DOMAIN_SUFFIXES, DEFAULT_WEBHOOK_WORKER_CONCURRENCY, type WebhookConfig } from './config/webhooks.js';

/**
 * The one place that reads `process.env`: documented defaults, then environment overrides, then
 * validation that fails at start with a message saying what to fix. Everything else receives a
 * `Config`, built explicitly by `loadConfig(env)`; one concern per file in config/ (webhooks,
 * HTTP and Redis, mail, metrics, tracing).
 */
export interface Config {
  /** PostgreSQL connection string; absent means "run on the embedded PostgreSQL under dataDir". */
  databaseUrl: string | undefined;
  /** Where the embedded PostgreSQL and the generated master key live. */
  dataDir: string;
  /** Port of the embedded PostgreSQL; 0 picks a free one at each start. */
  embeddedPostgresPort: number;
  /** Connections in this process's PostgreSQL pool. */
  databasePoolSize: number;
  /** How long shutdown waits for in-flight requests before closing their connections. */
  shutdownTimeoutMs: number;
  host: string;
  port: number;
  /**
   * Public base address of the server (OFFERDESK_PUBLIC_URL), scheme://host[:port] without a
   * path; default http://localhost:<port>. Console sign-in links and the console's cookie
   * (`Secure` over https) and cross-site check (its origin) are built from it.
   */
  publicUrl: string;
  /** Console sign-in attempts per email address in 15 minutes (CONSOLE_SIGN_IN_PER_EMAIL). */
  signInAttemptsPerEmail: number;
  /** Console sign-in attempts per client address in 15 minutes (CONSOLE_SIGN_IN_PER_ADDRESS). */
  signInAttemptsPerAddress: number;
  /**
   * Emailed sign-in and password-reset links asked for per email address in 15 minutes
   * (CONSOLE_MAIL_PER_EMAIL); per client address they share CONSOLE_SIGN_IN_PER_ADDRESS's number,
   * counted apart from password attempts. Lower than sign-in attempts: each one sends a mail.
   */
  mailRequestsPerEmail: number;
  /**
   * Whether OFFERDESK_PUBLIC_URL was set. The `servers` entry of the served OpenAPI document names
   * publicUrl only then, and otherwise the address the document was requested at, so a client
   * generated from a running instance works against it.
   */
  publicUrlSet: boolean;
  /** Redis for shared rate limits across API processes; absent means in-memory limits. */
  redisUrl: string | undefined;
  /** How Redis may fail without holding up a request (docs/reliability.md "A frozen or lost Redis never holds a request"). */
  redis: RedisTimeouts;
  /** How long a slow client may hold a socket (docs/reliability.md "Slow clients are cut off"). */
  http: HttpLimits;
  /** What /readyz accepts as a live webhook worker in this process. */
  readiness: ReadinessConfig;
  rateLimitPerKey: number;
  rateLimitPerIp: number;
  /** Express `trust proxy` setting, deciding which address is the client's (per-IP limit). */
  trustProxy: boolean | number | string;
  logLevel: LogLevel;
  /**
   * `pretty` (one readable line per entry, pino-pretty) or `json` (JSON lines); `auto` picks pretty
   * when the output is a terminal. An explicit LOG_LEVEL is kept; unset, a terminal shows warnings
   * and errors only, so the start banner stays readable.
   */
  logFormat: 'auto' | 'pretty' | 'json';
  /** Whether LOG_LEVEL was given; unset, a pretty terminal log is quiet (warn). */
  logLevelExplicit: boolean;
  /**
   * Seed a demo workspace with offers (and print its live key) on the first start of an empty
   * database. Default: only on the embedded database; with DATABASE_URL (production) only when
   * OFFERDESK_DEMO_SEED says so.
   */
  demoSeed: boolean;
  webhooks: WebhookConfig;
  /** The Prometheus listener (GET /metrics) of `serve` and `worker`. */
  metrics: MetricsConfig;
  /** SMTP_URL, MAIL_FROM and the mode they give (config/mail.ts); links use publicUrl. */
  mail: MailConfig;
  /** OpenTelemetry traces from the standard OTEL_* variables; off unless an exporter is named. */
  tracing: TracingConfig;
}

/** pino's levels; anything else stops the start with this list (LOG_LEVEL). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;

/** The data directory when OFFERDESK_DATA_DIR is unset: the package's own, wherever the command runs. */
export const DEFAULT_DATA_DIR = join(projectRoot, 'data');

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  }
  const webhooks = loadWebhookConfig(env, databaseUrl);
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const http = loadHttpLimits(env);
  const host = env.HOST || '127.0.0.1';

  return {
    databaseUrl,
    dataDir: env.OFFERDESK_DATA_DIR ? resolve(env.OFFERDESK_DATA_DIR) : DEFAULT_DATA_DIR,
    embeddedPostgresPort: integer(env, 'OFFERDESK_EMBEDDED_PG_PORT', 0, 0, 65535),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 0, 600_000),
    host,
    port,
    publicUrl: publicUrl(env.OFFERDESK_PUBLIC_URL, port),
    signInAttemptsPerEmail: integer(env, 'CONSOLE_SIGN_IN_PER_EMAIL', 10, 1, 1_000_000),
    signInAttemptsPerAddress: integer(env, 'CONSOLE_SIGN_IN_PER_ADDRESS', 50, 1, 1_000_000_000),
    mailRequestsPerEmail: integer(env, 'CONSOLE_MAIL_PER_EMAIL', 5, 1, 1_000_000),
    publicUrlSet: Boolean(env.OFFERDESK_PUBLIC_URL),
    redisUrl,
    redis: loadRedisTimeouts(env),
    http,
    readiness: {
      workerStaleAfterMs: integer(env, 'READY_WORKER_STALE_SECONDS', 60, 1, 86_400) * 1000,
    },
    rateLimitPerKey: integer(env, 'RATE_LIMIT_PER_KEY', 120, 1, 1_000_000_000),
    rateLimitPerIp: integer(env, 'RATE_LIMIT_PER_IP', 300, 1, 1_000_000_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', LOG_FORMATS, 'auto'),
    logLevelExplicit: Boolean(env.LOG_LEVEL),
    demoSeed: boolean(env, 'OFFERDESK_DEMO_SEED', databaseUrl === undefined),
    webhooks,
    metrics: loadMetricsConfig(env),
    mail: loadMailConfig(env, databaseUrl, host),
    tracing: loadTracingConfig(env),
  };
}
