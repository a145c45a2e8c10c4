import { resolve } from 'node:path';

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
   * Public base address of the server, scheme://host[:port] without a path (OFFERDESK_PUBLIC_URL),
   * e.g. behind a proxy; default `http://localhost:<port>`. The `servers` entry of the served
   * OpenAPI document uses it when it was set, and otherwise the address the document was
   * requested at (publicUrlSet), so a client generated from a running instance works against it.
   */
  publicUrl: string;
  publicUrlSet: boolean;
  /** Redis for shared rate limits across API processes; absent means in-memory limits. */
  redisUrl: string | undefined;
  rateLimitPerKey: number;
  rateLimitPerIp: number;
  /** Express `trust proxy` setting, deciding which address is the client's (per-IP limit). */
  trustProxy: boolean | number | string;
  logLevel: string;
  /** Seed a demo workspace with offers on the first start of an empty database. */
  demoSeed: boolean;
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  /** 32-byte key (base64) that encrypts endpoint secrets at rest; absent: generated under dataDir. */
  masterKey: string | undefined;
  /**
   * Development only (OFFERDESK_WEBHOOK_DEV_RESOLVE): host name -> local address and port that
   * replace DNS for that name; only these names skip the public-name and public-address rules.
   * A local receiver's CA is trusted the Node way, NODE_EXTRA_CA_CERTS=<ca.pem> at process start;
   * there is deliberately no setting that adds a CA (in-process tests pass `tls.ca` to
   * createWebhookSender instead).
   */
  devResolve: Map<string, { address: string; port: number }>;
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
  // Express accepts subnet lists and the names loopback, linklocal, uniquelocal.
  return raw;
}

/** scheme://host[:port], nothing else; one trailing slash is forgiven. */
function publicUrl(raw: string): string {
  const what = `OFFERDESK_PUBLIC_URL must be the server's public base address, scheme://host[:port] without a path (e.g. https://api.example.com), got "${raw}"`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(what);
  }
  const plain = !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash;
  if (!/^https?:$/.test(url.protocol) || !plain || !/^https?:\/\/[^/?#]+\/?$/.test(raw)) throw new ConfigError(what);
  return url.origin;
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

export function loadConfig(env: Env = process.env): Config {
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
  const extraBlocked = (env.WEBHOOK_BLOCKED_DOMAINS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase().replace(/^\.+/, ''))
    .filter(Boolean);

  const port = integer(env, 'PORT', 8080, 0, 65535);
  return {
    databaseUrl,
    dataDir: resolve(env.OFFERDESK_DATA_DIR || 'data'),
    embeddedPostgresPort: integer(env, 'OFFERDESK_EMBEDDED_PG_PORT', 0, 0, 65535),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 0, 600_000),
    host: env.HOST || '127.0.0.1',
    port,
    publicUrl: env.OFFERDESK_PUBLIC_URL ? publicUrl(env.OFFERDESK_PUBLIC_URL) : `http://localhost:${port}`,
    publicUrlSet: Boolean(env.OFFERDESK_PUBLIC_URL),
    redisUrl,
    rateLimitPerKey: integer(env, 'RATE_LIMIT_PER_KEY', 120, 1, 1_000_000_000),
    rateLimitPerIp: integer(env, 'RATE_LIMIT_PER_IP', 300, 1, 1_000_000_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL || 'info',
    demoSeed: boolean(env, 'OFFERDESK_DEMO_SEED', true),
    webhooks: {
      masterKey,
      devResolve: devResolve(env.OFFERDESK_WEBHOOK_DEV_RESOLVE),
      blockedDomainSuffixes: [...new Set([...DEFAULT_BLOCKED_DOMAIN_SUFFIXES, ...extraBlocked])],
      startsPerMinutePerWorkspace: integer(env, 'WEBHOOK_STARTS_PER_MINUTE', 60, 1, 1_000_000_000),
      workerConcurrency: integer(env, 'WEBHOOK_WORKER_CONCURRENCY', 16, 1, 1000),
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

export const testFault: TestFault | undefined = loadTestFault();
