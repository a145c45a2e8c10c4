import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { connect, type Sql } from '../../src/db/connect.js';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../test/support/https-receiver.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/support/otlp-receiver.js';
import { startChild, startWorkerProcess, type Child } from '../../test/support/faults/children.js';
import { startRedisProcess, type RedisProcess } from '../../test/support/faults/redis-process.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../test/mail/smtp-receiver.js';
import { freePort, waitUntil } from '../bench/processes.js';
import { startGate, type Gate } from './gate.js';
import type { Ledger } from './ledger.js';

/**
 * Everything the soak drives, on 127.0.0.1: a database of its own on the machine's PostgreSQL, a
 * redis-server of its own, a real HTTPS receiver, a real SMTP server and an OTLP receiver (each of
 * the last two behind a gate that can take it away or slow it), `serve --no-worker` and workers.
 */

/** Answer time of the slow endpoints: well inside the sender's 10 s response timeout. */
export const SLOW_ENDPOINT_MS = 2_500;
/** The shortest lease the configuration allows (docs/reliability.md "The fault suite"). */
const LEASE_SECONDS = 12;

export interface World {
  sql: Sql;
  databaseUrl: string;
  databaseName: string;
  redis: RedisProcess;
  receiver: HttpsReceiver;
  smtp: SmtpReceiver;
  smtpGate: Gate;
  otlp: OtlpReceiver;
  otlpGate: Gate;
  /** The environment of every service process; a rekey changes its keys. */
  env: Record<string, string | undefined>;
  masterKeys: string[];
  logDir: string;
  workDir: string;
  api: { child: Child; origin: string; metricsPort: number } | undefined;
  /** Workers by role: `steady` is never faulted (its memory is measured), `victim` is killed, `extra` comes and goes. */
  workers: Map<string, { child: Child; metricsPort: number }>;
  /** Endpoints that answer 500 while this is true. */
  flakyFailing: boolean;
  /** Starts a `serve` on a new port and moves the traffic to it; the one it replaced is stopped after. */
  startApi(): Promise<void>;
  startWorker(role: string): Promise<void>;
  stopWorker(role: string): Promise<void>;
  close(): Promise<void>;
}

/** The variables of this project are dropped from the inherited environment; the soak sets its own. */
function baseEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_|REDIS_|OFFERDESK_|WEBHOOK_|RATE_LIMIT_|HTTP_|READY_|CONSOLE_|SMTP_|MAIL_|OTEL_|PORT$|HOST$|LOG_LEVEL$|TRUST_PROXY$)/.test(name)) delete env[name];
  }
  return env;
}

let generation = 0;

/** Without DATABASE_URL: the machine's PostgreSQL on 5432 when one answers, else an embedded one of the soak's own. */
async function localPostgres(workDir: string, cleanups: Array<() => Promise<unknown>>, log: (line: string) => void): Promise<string> {
  const answers = await new Promise<boolean>((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port: 5432 });
    socket.setTimeout(1_000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
  if (answers) return 'postgres://postgres@127.0.0.1:5432/postgres';
  const server = await startEmbeddedPostgres({ dataDir: join(workDir, 'pg'), port: await freePort() });
  cleanups.push(() => server.stop());
  log('no PostgreSQL on 127.0.0.1:5432: an embedded one of the soak');
  return server.url;
}

export async function buildWorld(options: { workDir: string; ledger: Ledger; log: (line: string) => void }): Promise<World> {
  const { workDir, ledger, log } = options;
  const logDir = join(workDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const cleanups: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => log(`cleanup: ${String(error)}`));
  };
  try {
    const adminUrl = process.env.DATABASE_URL || (await localPostgres(workDir, cleanups, log));
    const databaseName = `offerdesk_soak_${randomBytes(4).toString('hex')}`;
    const admin = connect(adminUrl, { max: 1, applicationName: 'offerdesk-soak-setup' });
    await admin.unsafe(`create database ${databaseName}`);
    cleanups.push(async () => {
      await admin.unsafe(`drop database if exists ${databaseName} with (force)`);
      await admin.end({ timeout: 5 });
    });
    const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${databaseName}` }).toString();
    // The soak's own pool: its name keeps it out of the connections the PostgreSQL fault terminates.
    const sql = connect(databaseUrl, { max: 4, applicationName: 'offerdesk-soak' });
    cleanups.push(() => sql.end({ timeout: 5 }));
    log(`database ${databaseName} on ${new URL(adminUrl).host}`);

    const redis = await startRedisProcess();
    cleanups.push(() => redis.stop());

    const receiver = await startHttpsReceiver();
    cleanups.push(() => receiver.close());
    receiver.reply((request) => {
      // Only what the ledger needs is kept: the receiver's own list would grow for the whole run.
      receiver.requests.length = 0;
      const kind = ledger.received(request.path, request.headers, request.body);
      const status = kind === 'gone' ? 410 : kind === 'flaky' && world.flakyFailing ? 500 : 200;
      const delayMs = kind === 'slow' ? SLOW_ENDPOINT_MS : 0;
      ledger.openRequests++;
      setTimeout(() => {
        ledger.openRequests--;
        ledger.answered(request.path, request.headers, request.body, status);
      }, delayMs);
      return { status, body: status === 200 ? 'ok' : 'no', delayMs };
    });

    const smtp = await startSmtpReceiver();
    cleanups.push(() => smtp.close());
    const smtpGate = await startGate({ port: smtp.port });
    cleanups.push(() => smtpGate.close());
    const otlp = await startOtlpReceiver();
    cleanups.push(() => otlp.close());
    const otlpGate = await startGate({ port: Number(new URL(otlp.url).port) });
    cleanups.push(() => otlpGate.close());
    log(`redis-server on ${redis.url}, HTTPS receiver :${receiver.port}, SMTP :${smtpGate.port} (gate), OTLP :${otlpGate.port} (gate)`);

    const apiPort = await freePort();
    const masterKeys = [randomBytes(32).toString('base64')];
    const env: Record<string, string | undefined> = {
      ...baseEnv(),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      OFFERDESK_DATA_DIR: join(workDir, 'data'),
      OFFERDESK_DEMO_SEED: 'false',
      OFFERDESK_MASTER_KEY: masterKeys[0],
      OFFERDESK_PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      OFFERDESK_WEBHOOK_DEV_RESOLVE: `hooks.test=127.0.0.1:${receiver.port}`,
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      SMTP_URL: `smtp://127.0.0.1:${smtpGate.port}`,
      MAIL_FROM: 'Offerdesk Soak <soak@offerdesk.localhost>',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpGate.port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.2',
      OTEL_METRIC_EXPORT_INTERVAL: '15000',
      // The soak measures what faults do over time, not the limits (tested on their own).
      RATE_LIMIT_PER_KEY: '1000000000',
      RATE_LIMIT_PER_IP: '1000000000',
      CONSOLE_MAIL_PER_EMAIL: '100000',
      CONSOLE_SIGN_IN_PER_EMAIL: '100000',
      CONSOLE_SIGN_IN_PER_ADDRESS: '100000',
      WEBHOOK_STARTS_PER_MINUTE: '1000000',
      WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
      LOG_LEVEL: 'warn',
    };

    const world: World = {
      sql,
      databaseUrl,
      databaseName,
      redis,
      receiver,
      smtp,
      smtpGate,
      otlp,
      otlpGate,
      env,
      masterKeys,
      logDir,
      workDir,
      api: undefined,
      workers: new Map(),
      flakyFailing: false,
      async startApi() {
        // A port chosen here: the console's cross-site check compares Origin with
        // OFFERDESK_PUBLIC_URL, so the public address must be known before the start. A replacing
        // serve starts beside the old one (a rolling restart), on a port of its own.
        const port = world.api ? await freePort() : apiPort;
        const metricsPort = await freePort();
        const name = `api-${++generation}`;
        const publicUrl = `http://127.0.0.1:${port}`;
        const child = startChild(name, ['serve', '--no-worker', '--port', String(port), '--json'], { ...env, OFFERDESK_PUBLIC_URL: publicUrl, OFFERDESK_METRICS_PORT: String(metricsPort) }, logDir);
        const baseUrl = await child.waitFor((line) => (typeof line.base_url === 'string' ? line.base_url : undefined));
        // As a load balancer would: traffic moves to it once /readyz says it may take traffic.
        await waitUntil(`${name} did not become ready (see ${name}.log)`, () =>
          fetch(`${new URL(baseUrl).origin}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((res) => res.arrayBuffer().then(() => res.status === 200), () => false),
        );
        const previous = world.api;
        env.OFFERDESK_PUBLIC_URL = publicUrl;
        world.api = { child, origin: new URL(baseUrl).origin, metricsPort };
        // Requests already sent to the old one finish there: SIGTERM drains before it exits.
        await previous?.child.stop();
      },
      async startWorker(role) {
        const metricsPort = await freePort();
        const child = await startWorkerProcess(`worker-${role}-${++generation}`, { ...env, OFFERDESK_METRICS_PORT: String(metricsPort) }, logDir);
        world.workers.set(role, { child, metricsPort });
      },
      async stopWorker(role) {
        const worker = world.workers.get(role);
        world.workers.delete(role);
        await worker?.child.stop();
      },
      close,
    };
    cleanups.push(async () => {
      await Promise.all([...world.workers.values()].map((w) => w.child.stop()));
      await world.api?.child.stop();
    });
    return world;
  } catch (error) {
    await close();
    throw error;
  }
}
