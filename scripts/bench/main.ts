import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startAutoanalyzeStandIn } from './autoanalyze.js';
import { openBenchDatabase } from './database.js';
import { parseOptions } from './options.js';
import { REPO_DIR, stopAllChildren } from './processes.js';
import { runReadBenchmark } from './read-api.js';
import { compareWithPrevious, printReport, sanityProblems, type BenchResults } from './report.js';
import { ensureSeeded } from './seed-data.js';
import { runWebhookBenchmark } from './webhooks/run.js';

/** `npm run bench` (docs/performance.md): seeds or reuses, measures against baselines, writes bench/results.json. */
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

  /** A part of the run, timed, or nulls when --only leaves it out. */
  const part = async <T>(name: 'read' | 'webhooks', title: string, run: () => Promise<T>) => {
    if (options.only !== 'all' && options.only !== name) return { value: null, seconds: null };
    log(`\n${title}`);
    const started = performance.now();
    return { value: await run(), seconds: (performance.now() - started) / 1000 };
  };
  const profileDir = options.profile ? join(REPO_DIR, 'bench', 'profiles') : null;
  const read = await part('read', 'read API: service vs baseline', () => runReadBenchmark(db.sql, db, seeded, { ...options.read, profileDir, workDir, log }));
  let webhookError: string | null = null;
  // A failure is reported below; the read results of this run are still worth keeping.
  const webhooks = await part('webhooks', 'webhook delivery: worker vs baseline sender', () =>
    runWebhookBenchmark(db, { ...options.webhooks, workDir, log }).catch((error: Error) => {
      log(`webhook benchmark failed: ${error.stack ?? String(error)}`);
      webhookError = error.message;
      return null;
    }),
  );

  results = {
    kind: options.smoke ? 'smoke' : 'full',
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
    database: { name: db.name, ...db.setup },
    seed: { ...options.seed, ...seeded },
    read: read.value,
    webhooks: webhooks.value,
    webhookError,
    durations: { seedSeconds: seeded.seedSeconds, readSeconds: read.seconds, webhookSeconds: webhooks.seconds, totalSeconds: (performance.now() - runStarted) / 1000 },
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
  await closeDatabase();
  rmSync(workDir, { recursive: true, force: true });
}
// Sanity, not speed: every scenario ran and answered as expected (the smoke run's CI check).
const problems = results ? sanityProblems(results) : ['no results'];
for (const problem of problems) process.stderr.write(`bench: ${problem}\n`);
process.exit(problems.length === 0 ? 0 : 1);
