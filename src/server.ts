import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createApp } from './service/app.js';
import { serveMetrics } from './service/metrics.js';
import { API_BASE_PATH } from './http/openapi-document.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { advisoryLockKey } from './db/advisory-lock.js';
import type { Sql } from './db/connect.js';
import { openDatabase, type Database } from './db/open.js';
import { hashApiKey } from './domain/api-key-format.js';
import { DEMO_HISTORY_OFFERS, DEMO_OWNER_EMAIL, seedDemoWorkspace } from './seed/demo-seed.js';
import { createSignInLink, SIGN_IN_LINK_LIFETIME, signInLinkUrl } from './domain/sign-in-links.js';
import { validKeySql } from './read-model/scope.js';
import { closeServer, createHttpServer, listen, trackConnections } from './http-server.js';
import { coerceError, createServiceLogger, type Logger } from './log.js';
import { loadCheckedMasterKeys, startWorker, type RunningWorker } from './host/worker.js';
import { MAILBOX_PATH } from './mail/loop.js';

/**
 * `offerdesk serve`: the API process. Opens (and migrates) the database, seeds the demo workspace
 * on the first start of an empty database, serves the API and, unless told not to, runs the
 * webhook worker in the same process. Shutdown runs in the reverse order of start.
 */

/** The demo key is written here (mode 0600) so a later start can show it again. */
export const DEMO_KEY_FILE = 'demo-api-key.txt';

export interface ServiceOptions {
  config: Config;
  /** Overrides config.port (`serve --port`). 0 picks a free port. */
  port?: number;
  /** Overrides config.metrics.port (`serve --metrics-port`); 0 turns GET /metrics off. */
  metricsPort?: number;
  /** Run the webhook worker in this process (`serve --no-worker` turns it off). */
  worker: boolean;
  clock?: Clock;
  logger?: Logger;
  /** Where the start banner goes (base URL, demo key, curl line): stdout by default. */
  print?: (text: string) => void;
}

export interface RunningService {
  /** `http://HOST:PORT/api/v1` */
  baseUrl: string;
  port: number;
  /** Where GET /metrics is served; undefined when it is off (or the default port was taken). */
  metricsPort: number | undefined;
  /** The demo key when one is known for this database (first start, or from the key file). */
  demoApiKey: string | undefined;
  /** `<publicUrl>/console/` */
  consoleUrl: string;
  /** A fresh one-time console sign-in link for the demo owner, when the demo workspace exists. */
  demoSignInUrl: string | undefined;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to config.shutdownTimeoutMs),
   * stops the worker (it finishes in-flight attempts), closes the pool, stops the embedded
   * PostgreSQL. Idempotent.
   */
  stop(): Promise<void>;
}

export async function runService(options: ServiceOptions): Promise<RunningService> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createServiceLogger(config);
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));

  const db = await openDatabase(config, {
    applicationName: 'offerdesk-serve',
    log: (line) => logger.info({ component: 'database' }, line),
  });
  // Everything opened from here on is closed again if a later step of the start fails.
  const started: Array<() => Promise<void>> = [() => db.close()];
  const undo = async () => {
    for (const close of started.reverse()) await close().catch(() => {});
  };

  try {
    // Before anything is served: a master key that cannot open the stored endpoint secrets stops
    // the start with one line, instead of every delivery failing later.
    const masterKeys = await loadCheckedMasterKeys(db.sql, config, logger);
    const demoApiKey = config.demoSeed ? await demoKey(db, config, clock, logger) : undefined;

    // `serve --port N` moves the default public address (http://localhost:<PORT>) along with it.
    const listenPort = options.port ?? config.port;
    const appConfig = listenPort !== 0 ? { ...config, publicUrl: effectivePublicUrl(config, listenPort) } : config;
    let worker: RunningWorker | undefined;
    const api = await createApp({ sql: db.sql, config: appConfig, clock, logger, worker: () => worker });
    started.push(() => api.close());
    const server = await listen(createHttpServer(api.app, config.http, api.classes), listenPort, config.host);
    const connections = trackConnections(server);
    started.push(() => closeServer(server, connections, 0));
    const metrics = await serveMetrics({ config, sql: db.sql, logger, port: options.metricsPort });
    started.push(() => metrics.close());

    const port = (server.address() as AddressInfo).port;
    const publicUrl = effectivePublicUrl(config, port);
    if (options.worker) {
      // The worker's mails link to the address actually served (serve --port, or port 0).
      worker = await startWorker({ sql: db.sql, databaseUrl: db.url, config: { ...config, publicUrl }, clock, logger, masterKeys });
      const running = worker;
      started.push(() => running.stop());
    }

    const baseUrl = `http://${displayHost(config.host)}:${port}${API_BASE_PATH}`;
    const consoleUrl = `${publicUrl}/console/`;
    const demoSignInUrl = await demoSignIn(db.sql, clock, publicUrl);
    print(banner(baseUrl, demoApiKey, db, config) + consoleBanner(consoleUrl, demoSignInUrl) + mailBanner(config, publicUrl, options.worker));
    logger.info({ port, host: config.host, embedded: db.embedded, worker: worker !== undefined }, 'listening');

    let stopping: Promise<void> | undefined;
    return {
      baseUrl,
      port,
      metricsPort: metrics.port,
      demoApiKey,
      consoleUrl,
      demoSignInUrl,
      stop() {
        stopping ??= (async () => {
          logger.info('shutting down: no new connections, finishing requests in flight');
          await closeServer(server, connections, config.shutdownTimeoutMs);
          await api.close().catch((error) => logger.error({ err: coerceError(error) }, 'closing the API failed'));
          if (worker) {
            logger.info('stopping the webhook worker (in-flight attempts finish)');
            await worker.stop().catch((error) => logger.error({ err: coerceError(error) }, 'stopping the worker failed'));
          }
          await metrics.close();
          await db.close();
          logger.info('stopped');
        })();
        return stopping;
      },
    };
  } catch (error) {
    await undo();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Demo workspace

const DEMO_SEED_LOCK = advisoryLockKey('demo-seed');

interface DemoKeyFile {
  workspaceId: string;
  apiKey: string;
}

/**
 * Seeds the demo workspace when the database has no workspace yet, and returns the demo key:
 * the new one, or the one of an earlier start from `<dataDir>/demo-api-key.txt` when it still
 * opens this database (the file may belong to another DATABASE_URL, or the key may be revoked).
 */
async function demoKey(db: Database, config: Config, clock: Clock, logger: Logger): Promise<string | undefined> {
  const file = join(config.dataDir, DEMO_KEY_FILE);
  // Two processes starting at once on an empty database must seed once: a session-level lock
  // on one reserved connection (the seed runs its own transactions).
  const reserved = await db.sql.reserve();
  try {
    await reserved`select pg_advisory_lock(${DEMO_SEED_LOCK}::bigint)`;
    const [any] = await reserved`select exists (select 1 from workspaces) as present`;
    if (!any?.present) {
      const seeded = await seedDemoWorkspace(db.sql, clock, { historyOffers: DEMO_HISTORY_OFFERS });
      mkdirSync(config.dataDir, { recursive: true });
      const record: DemoKeyFile = { workspaceId: seeded.workspaceId, apiKey: seeded.apiKey };
      writeFileSync(file, `${seeded.apiKey}\n${JSON.stringify(record)}\n`, { mode: 0o600 });
      logger.info({ workspaceId: seeded.workspaceId, file }, 'seeded the demo workspace');
      return seeded.apiKey;
    }
  } finally {
    await reserved`select pg_advisory_unlock(${DEMO_SEED_LOCK}::bigint)`.catch(() => {});
    reserved.release();
  }
  return readDemoKey(db.sql, clock, file);
}

async function readDemoKey(sql: Sql, clock: Clock, file: string): Promise<string | undefined> {
  let record: DemoKeyFile;
  try {
    const [, json] = readFileSync(file, 'utf8').split('\n');
    record = JSON.parse(json ?? '') as DemoKeyFile;
  } catch {
    return undefined;
  }
  const [usable] = await sql`
    select 1 as ok
    from api_keys k
    where k.key_hash = ${hashApiKey(record.apiKey)}
      and k.workspace_id = ${record.workspaceId}::uuid
      and ${validKeySql(sql, 'k', clock.now())}`;
  return usable ? record.apiKey : undefined;
}

function banner(baseUrl: string, demoApiKey: string | undefined, db: Database, config: Config): string {
  const lines = [
    '',
    `Offerdesk API listening on ${baseUrl}`,
    `  database: ${db.embedded ? `embedded PostgreSQL in ${join(config.dataDir, 'postgres')}` : 'DATABASE_URL'}`,
  ];
  if (demoApiKey) {
    lines.push(
      `  demo API key: ${demoApiKey}`,
      `  (kept in ${join(config.dataDir, DEMO_KEY_FILE)} so later starts show it again)`,
      `  demo owner: ${DEMO_OWNER_EMAIL} (the --as of CLI commands)`,
      '',
      'Try:',
      `  curl -H "Authorization: Bearer ${demoApiKey}" ${baseUrl}/workspace`,
    );
  } else {
    lines.push(
      '  no demo API key for this database; create one with',
      '  npx offerdesk key create --workspace <WORKSPACE_ID> --name <NAME> --as <OWNER_EMAIL>',
    );
  }
  if (config.webhooks.devListen) lines.push('', 'Receive its webhooks on this machine, in another terminal:', '  npx offerdesk listen');
  lines.push('');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Console

/** The default public address names config.port; `serve --port` (or port 0) listens elsewhere. */
function effectivePublicUrl(config: Config, port: number): string {
  return config.publicUrl === `http://localhost:${config.port}` ? `http://localhost:${port}` : config.publicUrl;
}

/** A sign-in link for the demo owner when the demo workspace exists, so a newcomer is one click away. */
async function demoSignIn(sql: Sql, clock: Clock, publicUrl: string): Promise<string | undefined> {
  const [owner] = await sql<{ id: string }[]>`
    select a.id from accounts a
      join memberships m on m.account_id = a.id and m.role = 'owner'
     where lower(a.email) = lower(${DEMO_OWNER_EMAIL})
     limit 1`;
  if (!owner) return undefined;
  const link = await createSignInLink(sql, clock, { accountId: owner.id });
  return signInLinkUrl(publicUrl, link.token);
}

function consoleBanner(consoleUrl: string, demoSignInUrl: string | undefined): string {
  const lines = [`Console: ${consoleUrl}`];
  if (demoSignInUrl) {
    lines.push(
      `  sign in as the demo owner ${DEMO_OWNER_EMAIL} (link works once, for ${SIGN_IN_LINK_LIFETIME}):`,
      `  ${demoSignInUrl}`,
      `  later: npx offerdesk account sign-in-link --email ${DEMO_OWNER_EMAIL}`,
      `  or set a password: npx offerdesk account set-password --email ${DEMO_OWNER_EMAIL}`,
    );
  } else {
    lines.push('  sign in with a link: npx offerdesk account sign-in-link --email <EMAIL>');
  }
  lines.push('');
  return lines.join('\n');
}

/**
 * One line on where mail goes (README "Mail"): SMTP, the development mailbox of the embedded
 * default, or nowhere yet. SMTP_URL itself is never printed (it may hold a password).
 */
export function mailBanner(config: Config, publicUrl: string, worker: boolean): string {
  const { mail } = config;
  const sender = worker ? '' : ' by `offerdesk worker` (this serve runs no worker)';
  let line: string;
  if (mail.mode === 'smtp') line = `Mail: sent through SMTP_URL from ${mail.from}${sender}`;
  else if (mail.mode === 'off') line = 'Mail: off (no SMTP_URL): sign-in links, invitations and endpoint notices wait in the outbox until SMTP_URL is set';
  else if (mail.mailboxOpen) line = `Mail: kept on this machine, not sent (no SMTP_URL); read it at ${publicUrl}${MAILBOX_PATH}`;
  else line = `Mail: kept in the database, not sent (no SMTP_URL); the mailbox at ${MAILBOX_PATH} is served only on a loopback HOST`;
  return `${line}\n`;
}

/** A wildcard listen address is not something to paste into curl. */
function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
