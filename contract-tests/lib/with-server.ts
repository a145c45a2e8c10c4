/**
 * `tsx contract-tests/lib/with-server.ts <command> [args...]`
 *
 * Runs <command> against the real server (`offerdesk serve`) on a FRESH, seeded database, then
 * tears everything down and exits with the command's exit code. The command gets:
 *   CONTRACT_BASE_URL   http://127.0.0.1:PORT/api/v1
 *   CONTRACT_API_KEY    a valid key of the seeded workspace
 *   CONTRACT_OFFER_ID   one offer of that workspace (for targeted runs)
 *   CONTRACT_CONSOLE_EMAIL, CONTRACT_CONSOLE_PASSWORD   the workspace owner's console sign-in
 *   CONTRACT_WORKSPACE_ID   that workspace (the console API's {workspaceId})
 *   CONTRACT_ENDPOINT_ID    a webhook endpoint of it (the console API's {endpointId}; its host is
 *                           mapped to a closed local port, and the server runs no worker)
 *   CONTRACT_SEED_OFFERS how many offers the workspace holds
 *
 * Database: with DATABASE_URL, a new database is created on that server (and dropped after);
 * without it, the service's own embedded PostgreSQL runs in a temporary data directory.
 * Fixture: the domain's bulk seed (`seedOffers`, what `offerdesk seed` runs) gives offers in every
 * status and timelines of every type; this is verified before the command runs, so a seed that
 * stops covering them fails here instead of silently weakening the fuzzing.
 * Server: rate limits and the console sign-in throttle lifted, no demo seed, no worker.
 * CONTRACT_PLANT=drop-offer-title (gate-planted-defect.sh): the command talks to the server through
 * a proxy that drops `title` from the offers it answers (test/support/planted-defect.ts), a defect
 * planted outside the product for the gate to be seen failing on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { openDatabase, type Database } from '../../src/db/open.js';
import { createAccount, createWorkspace } from '../../src/domain/accounts.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { setPassword } from '../../src/domain/passwords.js';
import { addEndpoint } from '../../src/webhooks/management/endpoints.js';
import { OFFER_STATUSES } from '../../src/domain/offer-state.js';
import { seedOffers } from '../../src/seed/seed.js';
import { PLANTED_DEFECT, startTitleDroppingProxy } from '../../test/support/planted-defect.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REPORTS = join(ROOT, 'contract-tests', 'reports');
/**
 * Offers in the fixture: enough for every status and timeline type, and several pages of 25.
 * CONTRACT_SEED_OFFERS overrides it (the generated-clients gate walks 600).
 */
const SEED_OFFERS = Number(process.env.CONTRACT_SEED_OFFERS || 400);
const SEED_RANDOM_SEED = 4242;
/** "Lifted" limits for the fuzzers: the largest values config.ts accepts. */
const LIFTED_RATE_LIMIT = '1000000000';
const SERVER_START_DEADLINE_MS = 90_000;
/** The fixture owner's console password (a throwaway database; the gates sign in with it). */
const CONSOLE_EMAIL = 'contract-owner@agency.example';
const CONSOLE_PASSWORD = 'contract gate password';
/** Webhook settings shared by the fixture and the server: a throwaway master key, a local endpoint host. */
const WEBHOOK_ENV = {
  OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'),
  OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.contract.test=127.0.0.1:9',
};
const SERVER_STOP_DEADLINE_MS = 30_000;
/** openapi.yaml "OfferEvent" types; `signed` is ours for offer.signed (src/domain/timeline.ts). */
const KNOWN_TIMELINE_TYPES = [
  'created', 'edited', 'sent', 'viewed', 'section_viewed', 'calculator_used', 'summary_viewed',
  'code_requested', 'code_failed', 'code_verified', 'accepted', 'expired', 'withdrawn', 'signed',
];

/** The defect planted between the command and the server, if any (see the header). */
const PLANT = process.env.CONTRACT_PLANT || undefined;
if (PLANT !== undefined && PLANT !== PLANTED_DEFECT) {
  process.stderr.write(`with-server: CONTRACT_PLANT must be ${PLANTED_DEFECT}, got "${PLANT}"\n`);
  process.exit(2);
}

const command = process.argv.slice(2);
if (command.length === 0) {
  process.stderr.write('usage: tsx contract-tests/lib/with-server.ts <command> [args...]\n');
  process.exit(2);
}

const cleanups: Array<() => Promise<void> | void> = [];
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch (error) {
        process.stderr.write(`with-server: cleanup step failed: ${String(error)}\n`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void cleanUp().then(() => process.exit(130)));
}

function log(line: string): void {
  process.stderr.write(`with-server: ${line}\n`);
}

async function freshDatabaseEnv(): Promise<Record<string, string>> {
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const name = `offerdesk_contract_${randomBytes(6).toString('hex')}`;
    const admin = connect(adminUrl, { max: 1, applicationName: 'offerdesk-contract' });
    await admin.unsafe(`create database ${name}`);
    cleanups.push(async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    log(`fresh database ${name} on the server of DATABASE_URL`);
    // With DATABASE_URL the service refuses to start without a master key (it generates none).
    return { DATABASE_URL: url.toString(), OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64') };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'offerdesk-contract-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  log(`embedded PostgreSQL in ${dataDir}`);
  return { DATABASE_URL: '', OFFERDESK_DATA_DIR: dataDir };
}

async function seedFixture(
  db: Database,
  config: ReturnType<typeof loadConfig>,
): Promise<{ apiKey: string; offerId: string; workspaceId: string; endpointId: string }> {
  const { sql } = db;
  const clock = systemClock;
  const owner = await createAccount(sql, clock, { email: CONSOLE_EMAIL, name: 'Contract Owner' });
  await setPassword(sql, clock, { accountId: owner.id, password: CONSOLE_PASSWORD });
  const workspace = await createWorkspace(sql, clock, {
    name: 'Contract gate workspace',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    ownerAccountId: owner.id,
  });
  await seedOffers(sql, { workspaceId: workspace.id, offers: SEED_OFFERS, randomSeed: SEED_RANDOM_SEED, now: clock.now() });
  const key = await createApiKey(sql, clock, { workspaceId: workspace.id, name: 'contract gates', actingAccountId: owner.id });

  // Reported status, as openapi.yaml "Offer states" defines it (a sent offer past its deadline is expired).
  const statuses = await sql<{ status: string }[]>`
    select distinct case when status = 'sent' and expires_at <= now() then 'expired' else status end as status
    from offers where workspace_id = ${workspace.id}::uuid`;
  const types = await sql<{ type: string }[]>`
    select distinct e.type from offer_events e join offers o on o.id = e.offer_id
    where o.workspace_id = ${workspace.id}::uuid`;
  const missingStatuses = OFFER_STATUSES.filter((s) => !statuses.some((r) => r.status === s));
  const missingTypes = KNOWN_TIMELINE_TYPES.filter((t) => !types.some((r) => r.type === t));
  if (missingStatuses.length > 0 || missingTypes.length > 0) {
    throw new Error(
      `the seeded fixture must hold every status and timeline type; missing statuses [${missingStatuses}], types [${missingTypes}]`,
    );
  }
  const [offer] = await sql<{ id: string }[]>`
    select id from offers where workspace_id = ${workspace.id}::uuid and status = 'accepted' order by id limit 1`;
  log(`seeded ${SEED_OFFERS} offers (statuses: ${statuses.map((r) => r.status).sort().join(', ')}; ${types.length} timeline types)`);
  const endpoint = await addEndpoint(
    { sql, clock, config: config.webhooks, masterKey: Buffer.from(WEBHOOK_ENV.OFFERDESK_MASTER_KEY, 'base64') },
    { workspaceId: workspace.id, url: 'https://hooks.contract.test/offerdesk', events: ['offer.sent'], actorId: owner.id },
  );
  return { apiKey: key.key, offerId: offer!.id, workspaceId: workspace.id, endpointId: endpoint.id };
}

/** `offerdesk serve --port 0 --json`: resolves with the base URL from its JSON start line. */
async function startServer(env: NodeJS.ProcessEnv): Promise<{ baseUrl: string; child: ChildProcess }> {
  mkdirSync(REPORTS, { recursive: true });
  const serverLog = join(REPORTS, `server${PLANT ? `-plant-${PLANT}` : ''}.log`);
  const logFile = createWriteStream(serverLog);
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'offerdesk.js'), 'serve', '--port', '0', '--no-worker', '--json'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.pipe(logFile);
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  cleanups.push(async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), SERVER_STOP_DEADLINE_MS);
    await exitedPromise;
    clearTimeout(timer);
  });

  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`offerdesk serve printed no start line within ${SERVER_START_DEADLINE_MS} ms (log: ${serverLog})`)),
      SERVER_START_DEADLINE_MS,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      logFile.write(chunk);
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n')) {
        if (!line.includes('"base_url"')) continue;
        try {
          const parsed = JSON.parse(line) as { base_url?: string };
          if (parsed.base_url) {
            clearTimeout(timer);
            resolve(parsed.base_url);
            return;
          }
        } catch {
          // a log line that merely mentions base_url
        }
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`offerdesk serve exited (code ${code}, signal ${signal}) before it was ready (log: ${serverLog})`));
    });
  });
  return { baseUrl, child };
}

async function main(): Promise<number> {
  const dbEnv = await freshDatabaseEnv();
  const config = loadConfig({ ...process.env, ...dbEnv, ...WEBHOOK_ENV, DATABASE_URL: dbEnv.DATABASE_URL || undefined });
  // Migrates the fresh database; on the embedded server this starts it, and serve joins it.
  const db = await openDatabase(config, { applicationName: 'offerdesk-contract' });
  cleanups.push(() => db.close());
  const fixture = await seedFixture(db, config);

  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...dbEnv,
    ...WEBHOOK_ENV,
    RATE_LIMIT_PER_KEY: LIFTED_RATE_LIMIT,
    RATE_LIMIT_PER_IP: LIFTED_RATE_LIMIT,
    CONSOLE_SIGN_IN_PER_EMAIL: '1000000',
    CONSOLE_MAIL_PER_EMAIL: '1000000',
    CONSOLE_SIGN_IN_PER_ADDRESS: LIFTED_RATE_LIMIT,
    OFFERDESK_DEMO_SEED: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  if (!dbEnv.DATABASE_URL) delete serverEnv.DATABASE_URL;
  const server = await startServer(serverEnv);
  let baseUrl = server.baseUrl;
  log(`server ready at ${baseUrl}`);
  if (PLANT) {
    const served = new URL(baseUrl);
    const proxy = await startTitleDroppingProxy(served.origin, served.pathname);
    cleanups.push(() => proxy.close());
    baseUrl = `${proxy.origin}${served.pathname}`;
    log(`planted defect ${PLANT}: the command talks to the server through ${baseUrl}`);
  }

  const [program, ...args] = command;
  const child = spawn(program!, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      CONTRACT_BASE_URL: baseUrl,
      CONTRACT_API_KEY: fixture.apiKey,
      CONTRACT_OFFER_ID: fixture.offerId,
      CONTRACT_CONSOLE_EMAIL: CONSOLE_EMAIL,
      CONTRACT_CONSOLE_PASSWORD: CONSOLE_PASSWORD,
      CONTRACT_WORKSPACE_ID: fixture.workspaceId,
      CONTRACT_ENDPOINT_ID: fixture.endpointId,
      CONTRACT_SEED_OFFERS: String(SEED_OFFERS),
    },
  });
  return new Promise<number>((resolve) => {
    child.once('error', (error) => {
      log(`could not run ${program}: ${error.message}`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

let status = 1;
try {
  status = await main();
} catch (error) {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
}
await cleanUp();
process.exit(status);
