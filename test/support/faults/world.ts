import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { connect, type Sql } from '../../../src/db/connect.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/db/embedded.js';
import { migrate } from '../../../src/db/migrate.js';
import { createAccount, createWorkspace } from '../../../src/domain/accounts.js';
import { createApiKey } from '../../../src/domain/api-keys.js';
import { createOffer } from '../../../src/domain/offer-actions.js';
import { createLogger } from '../../../src/log.js';
import { addEndpoint, type ManagementDeps } from '../../../src/webhooks/management/endpoints.js';
import { loadMasterKey } from '../../../src/sealing/master-keys.js';
import { startHttpsReceiver, type HttpsReceiver } from '../https-receiver.js';
import { startApi, startWorkerProcess, stopAllChildren, type Child } from './children.js';
import { startReads, type ReadLoad } from './load.js';
import { freePort, startRedisProcess, type RedisProcess } from './redis-process.js';

/**
 * Everything the faults act on, all on 127.0.0.1: a PostgreSQL (embedded and ours to stop, or a
 * given one), a redis-server of its own, an HTTPS receiver, one `serve --no-worker` and two
 * `worker` processes, and the steady read load.
 */
export interface World {
  sql: Sql;
  /** Present when the suite runs its own embedded PostgreSQL (the PostgreSQL faults need it). */
  postgres?: { stop(): Promise<void>; start(): Promise<void> };
  redis: RedisProcess;
  receiver: HttpsReceiver;
  api: { child: Child; baseUrl: string; origin: string };
  workers: Child[];
  /** Environment of every service process (worker restarts reuse it). */
  env: Record<string, string | undefined>;
  workDir: string;
  reads: ReadLoad;
  manage: ManagementDeps;
  ownerId: string;
  /** Deadline settings the slow-client fault checks against. */
  headersTimeoutMs: number;
  close(): Promise<void>;
}

/** Short enough for the suite to stay short; each is a documented setting (docs/reliability.md). */
const HEADERS_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 5_000;
/** The shortest lease the configuration allows: how long a killed worker's attempts stay claimed. */
const LEASE_SECONDS = 12;
const WORKERS = 2;

/** The variables of this project are dropped from the inherited environment; the suite sets its own. */
function baseEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_|REDIS_|OFFERDESK_|WEBHOOK_|RATE_LIMIT_|HTTP_|READY_|PORT$|HOST$|LOG_LEVEL$|TRUST_PROXY$)/.test(name)) delete env[name];
  }
  return env;
}

export async function buildWorld(options: { workDir: string; databaseUrl?: string; log: (line: string) => void }): Promise<World> {
  const { workDir, log } = options;
  const logDir = join(workDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const cleanups: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => log(`cleanup: ${String(error)}`));
  };

  try {
    let databaseUrl = options.databaseUrl;
    let postgres: World['postgres'];
    if (!databaseUrl) {
      const port = await freePort();
      const dataDir = join(workDir, 'pg');
      let server: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir, port });
      databaseUrl = server.url;
      postgres = {
        stop: () => server.stop(),
        async start() {
          server = await startEmbeddedPostgres({ dataDir, port });
        },
      };
      cleanups.push(() => server.stop());
      log(`embedded PostgreSQL on 127.0.0.1:${port}`);
    }
    const sql = connect(databaseUrl, { max: 4, applicationName: 'offerdesk-faults' });
    cleanups.push(() => sql.end({ timeout: 5 }));
    await migrate(sql);

    const redis = await startRedisProcess();
    cleanups.push(() => redis.stop());
    const receiver = await startHttpsReceiver();
    cleanups.push(() => receiver.close());
    log(`redis-server on ${redis.url}, HTTPS receiver on 127.0.0.1:${receiver.port}`);

    const masterKey = randomBytes(32).toString('base64');
    const devResolve = `hooks.test=127.0.0.1:${receiver.port}`;
    const env = {
      ...baseEnv(),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      OFFERDESK_DATA_DIR: join(workDir, 'data'),
      OFFERDESK_DEMO_SEED: 'false',
      OFFERDESK_MASTER_KEY: masterKey,
      OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolve,
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      // The load measures faults, not the limits (those are tested on their own).
      RATE_LIMIT_PER_KEY: '1000000000',
      RATE_LIMIT_PER_IP: '1000000000',
      WEBHOOK_STARTS_PER_MINUTE: '1000000',
      WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      LOG_LEVEL: 'warn',
    };

    const config = loadConfig({ DATABASE_URL: databaseUrl, OFFERDESK_MASTER_KEY: masterKey, OFFERDESK_WEBHOOK_DEV_RESOLVE: devResolve });
    const manage: ManagementDeps = { sql, clock: systemClock, config: config.webhooks, masterKey: loadMasterKey(config, createLogger('silent')) };
    const tag = randomBytes(4).toString('hex');
    const owner = await createAccount(sql, systemClock, { email: `faults-${tag}@offerdesk.example`, name: 'Fault Suite' });
    const readsWorkspace = await createWorkspace(sql, systemClock, { name: `Reads ${tag}`, timezone: 'Europe/Berlin', currency: 'EUR', ownerAccountId: owner.id });
    const { key } = await createApiKey(sql, systemClock, { workspaceId: readsWorkspace.id, name: 'fault load', actingAccountId: owner.id });
    const offer = await createOffer(sql, systemClock, { workspaceId: readsWorkspace.id, title: 'Read under faults' });

    const api = await startApi(env, logDir);
    cleanups.push(() => api.child.stop());
    const workers: Child[] = [];
    for (let i = 0; i < WORKERS; i++) workers.push(await startWorkerProcess(`worker-${i + 1}`, env, logDir));
    cleanups.push(async () => {
      await stopAllChildren();
    });
    log(`serve at ${api.baseUrl}, ${WORKERS} workers`);

    const reads = startReads(api.baseUrl, key, offer.id);
    cleanups.push(() => reads.stop());

    return {
      sql,
      postgres,
      redis,
      receiver,
      api,
      workers,
      env,
      workDir,
      reads,
      manage,
      ownerId: owner.id,
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A workspace of its own for one fault, with one endpoint on the receiver at /<fault>. */
export async function phaseWorkspace(world: World, fault: string): Promise<{ workspaceId: string; path: string }> {
  const { id } = await createWorkspace(world.sql, systemClock, {
    name: `Fault ${fault}`,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    ownerAccountId: world.ownerId,
  });
  const path = `/${fault}`;
  await addEndpoint(world.manage, { workspaceId: id, url: `https://hooks.test${path}`, events: ['offer.sent'], actorId: world.ownerId });
  return { workspaceId: id, path };
}
