import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startAutoanalyzeStandIn } from './autoanalyze.js';
import { openBenchDatabase } from './database.js';
import { parseOptions } from './options.js';
import { REPO_DIR, stopAllChildren } from './processes.js';
import { runReadBenchmark, type ReadResults } from './read-api.js';
import { compareWithPrevious, printReport, sanityProblems, type BenchResults } from './report.js';
import { ensureSeeded } from './seed-data.js';
import { runWebhookBenchmark, type WebhookResults } from './webhooks/run.js';

/**
 * `npm run bench`: seeds (or reuses) a 1,000,000-offer workspace in the bench's own
 * database, measures the read API and the webhook delivery against baselines in the same run,
 * prints a table and writes bench/results.json. `npm run bench:smoke` runs tiny sizes.
 */
const options = parseOptions(process.argv.slice(2));
const log = (line: string) => process.stdout.write(`${line}\n`);
const runStarted = performance.now();
const workDir = mkdtempSync(join(tmpdir(), 'offerdesk-bench-'));

// Ctrl-C: stop the servers, workers and load generators first, then the database.
let closeDatabase: (() => Promise<void>) | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`\n${signal}: stopping the benchmark's processes`);
    void stopAllChildren().then(() => closeDatabase?.()).finally(() => process.exit(130));
  });
}

const db = await openBenchDatabase(loadConfig(), options.database, { recreate: options.reseed, log });
const stopAutoanalyze = startAutoanalyzeStandIn(db.sql, db.setup.autovacuum, log);
closeDatabase = async () => {
  await stopAutoanalyze();
  await db.close();
};
let results: BenchResults | undefined;
try {
  log(`seeding: ${options.seed.offers.toLocaleString('en')} offers in one workspace + ${options.seed.otherWorkspaces} others (database ${db.name})`);
  const seeded = await ensureSeeded(db.sql, db.url, options.seed, log);

  const timed = async <T>(run: () => Promise<T>) => {
    const started = performance.now();
    return { value: await run(), seconds: (performance.now() - started) / 1000 };
  };
  let read: ReadResults | null = null;
  let readSeconds: number | null = null;
  if (options.only !== 'webhooks') {
    log('\nread API: service vs baseline');
    const profileDir = options.profile ? join(REPO_DIR, 'bench', 'profiles') : null;
    ({ value: read, seconds: readSeconds } = await timed(() => runReadBenchmark(db.sql, db, seeded, { ...options.read, profileDir, workDir, log })));
  }

  let webhooks: WebhookResults | null = null;
  let webhookError: string | null = null;
  let webhookSeconds: number | null = null;
  if (options.only !== 'read') {
    log('\nwebhook delivery: worker vs baseline sender');
    // A failure is reported below; the read results of this run are still worth keeping.
    const run = () =>
      runWebhookBenchmark(db, { ...options.webhooks, workDir, log }).catch((error: Error) => {
        log(`webhook benchmark failed: ${error.stack ?? String(error)}`);
        webhookError = error.message;
        return null;
      });
    ({ value: webhooks, seconds: webhookSeconds } = await timed(run));
  }

  results = {
    kind: options.smoke ? 'smoke' : 'full',
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
    database: { name: db.name, ...db.setup },
    seed: { ...options.seed, ...seeded },
    read,
    webhooks,
    webhookError,
    durations: { seedSeconds: seeded.seedSeconds, readSeconds, webhookSeconds, totalSeconds: (performance.now() - runStarted) / 1000 },
  };
  mkdirSync(join(REPO_DIR, 'bench'), { recursive: true });
  const resultsPath = join(REPO_DIR, options.resultsFile);
  const previous = existsSync(resultsPath) ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as BenchResults) : null;
  writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  printReport(results, options, log);
  compareWithPrevious(results, previous, options.resultsFile, log);
  log(`\nwrote ${options.resultsFile}`);
} finally {
  await stopAllChildren();
  await stopAutoanalyze();
  await db.close();
  rmSync(workDir, { recursive: true, force: true });
}
// Sanity, not speed: every scenario ran and answered as expected (the smoke run's CI check).
const problems = results ? sanityProblems(results) : ['no results'];
for (const problem of problems) process.stderr.write(`bench: ${problem}\n`);
process.exit(problems.length === 0 ? 0 : 1);
