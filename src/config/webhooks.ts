import { MINUTE } from '../clock.js';
import { boolean, ConfigError, integer, type Env } from './values.js';

/*
 * The fairness numbers (docs/webhook-delivery.md "Limits" and "Fairness"), in one place. Two of
 * them are defaults of settings, and config is a leaf the engine may import but that imports no
 * layer, so they live here and src/webhooks/engine/policy.ts, the home of the other policy
 * numbers, takes them from here.
 */

/** docs/webhook-delivery.md "Limits": deliveries started per workspace, unless WEBHOOK_STARTS_PER_MINUTE says otherwise. */
export const DEFAULT_STARTS_PER_WINDOW_PER_WORKSPACE = 60;
/** docs/webhook-delivery.md "Limits": the start rate counts over a fixed window this long. */
export const START_RATE_WINDOW_MS = 1 * MINUTE;
/**
 * docs/webhook-delivery.md "Fairness": one endpoint gets at most a quarter of a worker's concurrent
 * attempts (policy.ts maxInFlightPerEndpoint), so a slow endpoint occupies only its share.
 */
export const ENDPOINT_SHARES_PER_WORKER = 4;
/**
 * Attempts one webhook worker runs at once unless WEBHOOK_WORKER_CONCURRENCY says otherwise.
 * Sending is I/O-bound (docs/webhook-delivery.md "Limits": up to 10 seconds per answer) and outcomes are
 * written in batches, so slots are cheap: 64 give one worker about 1.5 times the deliveries per
 * second of 16 and nine tenths of 128's (924/s against 628/s and 1,047/s), and a slow endpoint's
 * share (one of ENDPOINT_SHARES_PER_WORKER, 16 slots) still leaves 48 for the others.
 */
export const DEFAULT_WEBHOOK_WORKER_CONCURRENCY = 64;

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
   * DATABASE_URL; refused together with NODE_ENV=production. docs/receiving-webhooks-on-your-laptop.md.
   */
  devListen: boolean;
  /** Domain suffixes no endpoint may use: the service's own domains and hosting platforms. */
  blockedDomainSuffixes: string[];
  /** docs/webhook-delivery.md "Limits": deliveries started per minute per workspace. */
  startsPerMinutePerWorkspace: number;
  /** How many deliveries one worker process sends at once. */
  workerConcurrency: number;
  /**
   * How long a claimed attempt stays with its worker; a worker killed mid-attempt has its delivery
   * attempted again after this. Must exceed the 10-second response timeout.
   */
  leaseSeconds: number;
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

/**
 * console-api.yaml "Endpoint addresses" wants public receivers only; the listen mapping is a
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

/** The webhook settings of `env`; `databaseUrl` decides the development defaults. */
export function loadWebhookConfig(env: Env, databaseUrl: string | undefined): WebhookConfig {
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
  return {
    masterKey,
    previousMasterKeys,
    devResolve: devResolve(env.OFFERDESK_WEBHOOK_DEV_RESOLVE),
    devListen: devListen(env, databaseUrl),
    blockedDomainSuffixes: [...new Set([...DEFAULT_BLOCKED_DOMAIN_SUFFIXES, ...extraBlocked])],
    startsPerMinutePerWorkspace: integer(env, 'WEBHOOK_STARTS_PER_MINUTE', DEFAULT_STARTS_PER_WINDOW_PER_WORKSPACE, 1, 1_000_000_000),
    workerConcurrency: integer(env, 'WEBHOOK_WORKER_CONCURRENCY', DEFAULT_WEBHOOK_WORKER_CONCURRENCY, 1, 1000),
    leaseSeconds: integer(env, 'WEBHOOK_LEASE_SECONDS', 60, 12, 3600),
  };
}
