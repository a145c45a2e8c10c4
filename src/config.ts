import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { projectRoot } from './paths.js';

/**
 * Attempts one webhook worker runs at once unless WEBHOOK_WORKER_CONCURRENCY says otherwise.
 * Sending is I/O-bound (SPEC.md "Webhook limits": up to 10 seconds per answer) and outcomes are
 * written in batches, so slots are cheap: one worker delivered 628/s at 16, 924/s at 64 and
 * 1,047/s at 128 (docs/performance.md). 64 keeps most of the gain, and a slow endpoint's share
 * (a quarter, 16 slots) still leaves 48 for the others.
 */
export const DEFAULT_WEBHOOK_WORKER_CONCURRENCY = 64;

/**
 * The one place that reads `process.env` (STYLE.md "Configuration and constants"):
 * documented defaults, then environment overrides, then validation that fails at start
 * with a message saying what to fix. Everything else receives a `Config`.
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
   * Whether OFFERDESK_PUBLIC_URL was set. The `servers` entry of the served OpenAPI document names
   * publicUrl only then, and otherwise the address the document was requested at, so a client
   * generated from a running instance works against it.
   */
  publicUrlSet: boolean;
  /** Redis for shared rate limits across API processes; absent means in-memory limits. */
  redisUrl: string | undefined;
  /** How Redis may fail without holding up a request (docs/reliability.md "A frozen Redis"). */
  redis: RedisTimeouts;
  /** How long a slow client may hold a socket (docs/reliability.md "Slow clients"). */
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
}

export interface WebhookConfig {
  /**
   * 32-byte key (base64) that seals endpoint secrets at rest (OFFERDESK_MASTER_KEY). Absent: on the
   * embedded database a key is generated under dataDir; with DATABASE_URL the start is refused.
   */
  masterKey: string | undefined;
  /**
   * Keys secrets may still be sealed with during a rotation (OFFERDESK_MASTER_KEYS_PREVIOUS,
   * comma-separated base64): they open, never seal; `offerdesk secrets rekey` moves secrets off them.
   */
  previousMasterKeys: string[];
  /**
   * Development only (OFFERDESK_WEBHOOK_DEV_RESOLVE): host name -> local address and port that
   * replace DNS for that name; only these names skip the public-name and public-address rules.
   * A local receiver's CA is trusted the Node way, NODE_EXTRA_CA_CERTS=<ca.pem> at process start;
   * there is deliberately no setting that adds a CA (in-process tests pass `tls.ca` to
   * createWebhookSender instead).
   */
  devResolve: Map<string, { address: string; port: number }>;
  /**
   * Development only: honour the loopback mappings `offerdesk listen` records in the database
   * (table dev_listen_endpoints) for the endpoints it created, and let `listen` create them.
   * OFFERDESK_DEV_LISTEN; default on with the embedded database (no DATABASE_URL), off with
   * DATABASE_URL; refused together with NODE_ENV=production. README "Receiving webhooks on your laptop".
   */
  devListen: boolean;
  /** Domain suffixes no endpoint may use: the service's own domains and hosting platforms. */
  blockedDomainSuffixes: string[];
  /** SPEC.md "Webhook limits": deliveries started per minute per workspace. */
  startsPerMinutePerWorkspace: number;
  /** How many deliveries one worker process sends at once. */
  workerConcurrency: number;
  /**
   * How long a claimed attempt stays with its worker; a worker killed mid-attempt has its delivery
   * attempted again after this. Must exceed the 10-second response timeout.
   */
  leaseSeconds: number;
}

export interface RedisTimeouts {
  /** A command without an answer after this fails, and the in-memory limiter decides instead. */
  commandTimeoutMs: number;
  /** A connection attempt (TCP connect) that takes longer is abandoned and retried. */
  connectTimeoutMs: number;
  /** Reconnect attempts back off up to this pause, and go on for as long as Redis is away. */
  reconnectMaxDelayMs: number;
}

export interface HttpLimits {
  /** All request headers must arrive within this (Node `server.headersTimeout`). */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this (`server.requestTimeout`). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is kept this long; above a load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** Largest request head (request line plus headers) in bytes; larger gets 431. */
  maxHeaderBytes: number;
  /** An API request not answered after this gets the generic 500, whatever it waits for. */
  responseDeadlineMs: number;
}

export interface ReadinessConfig {
  /** A worker whose last successful claim round is older than this makes /readyz answer 503. */
  workerStaleAfterMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The service's own domains and common hosting platforms; extended with WEBHOOK_BLOCKED_DOMAINS. */
export const DEFAULT_BLOCKED_DOMAIN_SUFFIXES = [
  'offerdesk.example',
  'offerdesk.com',
  'herokuapp.com',
  'vercel.app',
  'netlify.app',
  'pages.dev',
  'workers.dev',
  'github.io',
  'ngrok.io',
  'ngrok-free.app',
  'azurewebsites.net',
  'cloudfunctions.net',
  'appspot.com',
  'web.app',
  'firebaseapp.com',
  'fly.dev',
  'onrender.com',
  'glitch.me',
  'repl.co',
];

type Env = Record<string, string | undefined>;

/** pino's levels; anything else stops the start with this list (LOG_LEVEL). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;

/** The data directory when OFFERDESK_DATA_DIR is unset: the package's own, wherever the command runs. */
export const DEFAULT_DATA_DIR = join(projectRoot, 'data');

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return value as T;
}

/**
 * SPEC.md "Webhook endpoint management" wants public receivers only; the listen mapping is a
 * development exception, so it is never on where a production marker is present.
 */
function devListen(env: Env, databaseUrl: string | undefined): boolean {
  const enabled = boolean(env, 'OFFERDESK_DEV_LISTEN', databaseUrl === undefined);
  if (enabled && env.NODE_ENV === 'production') {
    if (env.OFFERDESK_DEV_LISTEN) {
      throw new ConfigError('OFFERDESK_DEV_LISTEN cannot be on with NODE_ENV=production; unset one of them');
    }
    return false;
  }
  return enabled;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || /^(false|0|off|no)$/i.test(raw)) return false;
  if (/^(true|on|yes)$/i.test(raw)) return true;
  if (/^[0-9]+$/.test(raw)) return Number(raw);
  // Express accepts subnet lists and the names loopback, linklocal, uniquelocal; anything else
  // would stop the start with Express's own message, so it is checked here.
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (['loopback', 'linklocal', 'uniquelocal'].includes(item)) continue;
    const valid = item.includes('/') ? isCidr(item) : ipaddr.isValid(item);
    if (!valid) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, a hop count, or addresses/subnets and loopback, linklocal, uniquelocal; "${item}" is none of them`,
      );
    }
  }
  return raw;
}

function isCidr(text: string): boolean {
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/** "hooks.test=127.0.0.1:8443,other.test=127.0.0.1:9443" */
function devResolve(raw: string | undefined): Map<string, { address: string; port: number }> {
  const map = new Map<string, { address: string; port: number }>();
  if (!raw) return map;
  for (const entry of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const match = /^([a-z0-9.-]+)=([0-9.]+|\[[0-9a-f:]+\]):([0-9]{1,5})$/i.exec(entry);
    if (!match) {
      throw new ConfigError(
        `OFFERDESK_WEBHOOK_DEV_RESOLVE entry "${entry}" must look like name=127.0.0.1:8443`,
      );
    }
    const port = Number(match[3]);
    if (port < 1 || port > 65535) throw new ConfigError(`OFFERDESK_WEBHOOK_DEV_RESOLVE port out of range in "${entry}"`);
    map.set(match[1]!.toLowerCase(), { address: match[2]!.replace(/^\[|\]$/g, ''), port });
  }
  return map;
}

/** scheme://host[:port], no path, query or credentials; returned without a trailing slash. */
function publicUrl(raw: string | undefined, port: number): string {
  if (raw === undefined || raw === '') return `http://localhost:${port}`;
  const what = `OFFERDESK_PUBLIC_URL must be the server's public base address, scheme://host[:port] without a path (e.g. https://api.example.com), got "${raw}"`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(what);
  }
  const bare = (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username && !url.password;
  if (!/^https?:$/.test(url.protocol) || !bare) throw new ConfigError(what);
  return url.origin;
}

export function loadConfig(env: Env = process.env): Config {
  loadTestFault(env);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  }
  const masterKey = env.OFFERDESK_MASTER_KEY || undefined;
  if (masterKey && Buffer.from(masterKey, 'base64').length !== 32) {
    throw new ConfigError('OFFERDESK_MASTER_KEY must be the base64 encoding of exactly 32 bytes');
  }
  const previousMasterKeys = (env.OFFERDESK_MASTER_KEYS_PREVIOUS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  previousMasterKeys.forEach((key, index) => {
    if (Buffer.from(key, 'base64').length !== 32) {
      throw new ConfigError(`OFFERDESK_MASTER_KEYS_PREVIOUS entry ${index + 1} must be the base64 encoding of exactly 32 bytes`);
    }
  });
  if (previousMasterKeys.length > 0 && !masterKey) {
    throw new ConfigError('OFFERDESK_MASTER_KEYS_PREVIOUS is set but OFFERDESK_MASTER_KEY is not: set the current key too');
  }
  const extraBlocked = (env.WEBHOOK_BLOCKED_DOMAINS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase().replace(/^\.+/, ''))
    .filter(Boolean);

  const port = integer(env, 'PORT', 8080, 0, 65535);
  const http: HttpLimits = {
    headersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 15_000, 100, 600_000),
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1_000, 600_000),
    maxHeaderBytes: integer(env, 'HTTP_MAX_HEADER_BYTES', 8_192, 1_024, 65_536),
    responseDeadlineMs: integer(env, 'HTTP_RESPONSE_DEADLINE_MS', 5_000, 100, 600_000),
  };
  // Node refuses a header deadline later than the whole request's.
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${http.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`,
    );
  }

  return {
    databaseUrl,
    dataDir: env.OFFERDESK_DATA_DIR ? resolve(env.OFFERDESK_DATA_DIR) : DEFAULT_DATA_DIR,
    embeddedPostgresPort: integer(env, 'OFFERDESK_EMBEDDED_PG_PORT', 0, 0, 65535),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 0, 600_000),
    host: env.HOST || '127.0.0.1',
    port,
    publicUrl: publicUrl(env.OFFERDESK_PUBLIC_URL, port),
    signInAttemptsPerEmail: integer(env, 'CONSOLE_SIGN_IN_PER_EMAIL', 10, 1, 1_000_000),
    signInAttemptsPerAddress: integer(env, 'CONSOLE_SIGN_IN_PER_ADDRESS', 50, 1, 1_000_000_000),
    publicUrlSet: Boolean(env.OFFERDESK_PUBLIC_URL),
    redisUrl,
    redis: {
      commandTimeoutMs: integer(env, 'REDIS_COMMAND_TIMEOUT_MS', 300, 10, 10_000),
      connectTimeoutMs: integer(env, 'REDIS_CONNECT_TIMEOUT_MS', 1_000, 10, 60_000),
      reconnectMaxDelayMs: integer(env, 'REDIS_RECONNECT_MAX_DELAY_MS', 2_000, 10, 60_000),
    },
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
    webhooks: {
      masterKey,
      previousMasterKeys,
      devResolve: devResolve(env.OFFERDESK_WEBHOOK_DEV_RESOLVE),
      devListen: devListen(env, databaseUrl),
      blockedDomainSuffixes: [...new Set([...DEFAULT_BLOCKED_DOMAIN_SUFFIXES, ...extraBlocked])],
      startsPerMinutePerWorkspace: integer(env, 'WEBHOOK_STARTS_PER_MINUTE', 60, 1, 1_000_000_000),
      workerConcurrency: integer(env, 'WEBHOOK_WORKER_CONCURRENCY', DEFAULT_WEBHOOK_WORKER_CONCURRENCY, 1, 1000),
      leaseSeconds: integer(env, 'WEBHOOK_LEASE_SECONDS', 60, 12, 3600),
    },
  };
}

/**
 * TEST-ONLY fault switch for the contract gates (contract-tests/, README "Contract gates"): each
 * gate must be seen to fail on a deliberately broken server. `OFFERDESK_FAULT=drop-offer-title`
 * makes the read model omit the required `title` of every offer (API and webhook bodies alike).
 * Unset, it changes nothing; an unknown value fails at start. Never set it in production.
 */
export const TEST_FAULTS = ['drop-offer-title'] as const;
export type TestFault = (typeof TEST_FAULTS)[number];

export function loadTestFault(env: Env = process.env): TestFault | undefined {
  const raw = env.OFFERDESK_FAULT || undefined;
  if (raw !== undefined && !(TEST_FAULTS as readonly string[]).includes(raw)) {
    throw new ConfigError(`OFFERDESK_FAULT must be one of ${TEST_FAULTS.join(', ')} (test only), got "${raw}"`);
  }
  return raw as TestFault | undefined;
}

/** A bad value is reported by loadConfig, with the other configuration errors, not at import. */
export const testFault: TestFault | undefined = (() => {
  try {
    return loadTestFault();
  } catch {
    return undefined;
  }
})();
