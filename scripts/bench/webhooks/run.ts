import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { addEndpoint, removeEndpoint, type ManagementDeps } from '../../../src/webhooks/management.js';
import { OFFER_WEBHOOK_TYPES } from '../../../src/domain/outbox.js';
import { loadMasterKeys } from '../../../src/webhooks/secrets.js';
import { testCertificates } from '../../../test/support/https-receiver.js';
import type { BenchDatabase } from '../database.js';
import { freePort, runJson, startNode, type NodeProcess } from '../processes.js';
import type { SeededData } from '../seed-data.js';
import { clearDeliveries, clearEndpoints, commitEvents, ensureWebhookWorkspaces } from './setup.js';

/**
 * Webhook delivery (issue 5): the delivery worker (`offerdesk worker`, start limit lifted) against
 * a local HTTPS receiver, compared with a sender loop without the database. Runs, in order:
 *   throughput  N events over W workspaces x 2 endpoints, committed at once, one worker
 *   baseline    the same bodies through the project's sender at the same concurrency
 *   latency     events committed one by one at a steady rate below capacity (nothing waits)
 *   reference / failing / scale-out   a smaller backlog with one worker, with failing (500)
 *               endpoints in the mix, and with two workers
 *   fairness    one workspace with a huge backlog committed just before 10 events of every other
 */

export interface WebhookOptions {
  events: number;
  workspaces: number;
  endpointsPerWorkspace: number;
  concurrency: number;
  latencyRate: number;
  latencyEvents: number;
  fairnessBigEvents: number;
  fairnessSmallWorkspaces: number;
  fairnessSmallEvents: number;
  workDir: string;
  log: (line: string) => void;
}

interface RunStats {
  events: number;
  deliveries: number;
  seconds: number;
  perSecond: number;
  /** Commit to first arrival at the receiver, per delivery. */
  e2eP50Ms: number;
  e2eP99Ms: number;
  duplicates: number;
  workers: number;
  /** Statements the workers sent (postgres.js debug hook) per delivery attempt. */
  statementsPerDelivery: number | null;
  transactionsPerDelivery: number | null;
  /** pg_stat_database xact_commit delta of the bench database per delivery (every client). */
  commitsPerDelivery: number | null;
}

export interface WebhookResults {
  throughput: RunStats;
  baseline: { sent: number; ok: number; seconds: number; perSecond: number };
  /** worker deliveries/s divided by baseline deliveries/s (target >= 0.5) */
  ratio: number;
  latency: RunStats & { rate: number };
  failingEndpoints: { reference: RunStats; withFailing: RunStats & { failingEndpoints: number; failedAttempts: number }; slowdown: number };
  scaleOut: { one: RunStats; two: RunStats; ratio: number };
  fairness: {
    bigEventsCommitted: number;
    bigEventsTurnedIntoWebhooks: number;
    bigEventsDroppedByLimit: number;
    smallWorkspaces: number;
    smallDeliveries: number;
    smallFirstAttemptsP50Ms: number;
    smallFirstAttemptsMaxMs: number;
    bigDeliveriesBeforeLastSmall: number;
  };
  method: string;
}

const STALL_TIMEOUT_MS = 60_000;
const POLL_MS = 200;
const PROGRESS_LOG_MS = 15_000;
const LIFTED_STARTS = '1000000000';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const wallNow = () => performance.timeOrigin + performance.now();

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Receiver {
  proc: NodeProcess;
  control: string;
  reset(): Promise<void>;
  summary(): Promise<{ requests: number; distinct: number; duplicates: number; failedAnswers: number }>;
  /** [path + ' ' + webhook-id, path, wall-clock ms, count] */
  arrivals(): Promise<[string, string, number, number][]>;
}

async function startReceiver(workDir: string, certFile: string, keyFile: string): Promise<{ receiver: Receiver; port: number }> {
  const [port, controlPort] = [await freePort(), await freePort()];
  const proc = startNode('receiver', 'webhooks/receiver.ts', {
    env: { RECEIVER_CERT: certFile, RECEIVER_KEY: keyFile, RECEIVER_PORT: String(port), RECEIVER_CONTROL_PORT: String(controlPort) },
    logFile: join(workDir, 'receiver.log'),
  });
  const control = `http://127.0.0.1:${controlPort}`;
  const get = async <T>(path: string, method = 'GET'): Promise<T> => {
    const res = await fetch(`${control}${path}`, { method });
    return (await res.json()) as T;
  };
  for (let i = 0; ; i++) {
    try {
      await get('/summary');
      break;
    } catch {
      if (i > 600) throw new Error('the webhook receiver did not start');
      await sleep(50);
    }
  }
  return {
    port,
    receiver: {
      proc,
      control,
      reset: () => get('/reset', 'POST'),
      summary: () => get('/summary'),
      arrivals: () => get('/arrivals'),
    },
  };
}

interface Workers {
  stop(): Promise<{ statements: number; transactions: number }>;
}

async function startWorkers(count: number, env: Record<string, string>, workDir: string): Promise<Workers> {
  const procs = Array.from({ length: count }, (_, i) =>
    startNode(`worker-${i + 1}`, 'webhooks/worker-process.ts', { env, stdout: 'pipe', logFile: join(workDir, `worker-${i + 1}.log`) }),
  );
  const outputs = procs.map((proc) => {
    const state = { text: '' };
    proc.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (state.text += chunk));
    return state;
  });
  const deadline = Date.now() + 60_000;
  while (!outputs.every((o) => o.text.includes('"ready":true'))) {
    if (Date.now() > deadline) throw new Error('webhook workers did not start');
    await sleep(50);
  }
  return {
    async stop() {
      await Promise.all(procs.map((proc) => proc.stop()));
      let statements = 0;
      let transactions = 0;
      for (const o of outputs) {
        const line = o.text.split('\n').find((l) => l.includes('"statements"'));
        if (line) {
          const counts = JSON.parse(line) as { statements: number; transactions: number };
          statements += counts.statements;
          transactions += counts.transactions;
        }
      }
      return { statements, transactions };
    },
  };
}

async function xactCommits(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select xact_commit::int8 as n from pg_stat_database where datname = current_database()`;
  return row!.n;
}

/** Waits until every event is out of the outbox and every delivery has had its first attempt. */
async function waitForFirstAttempts(sql: Sql, receiver: Receiver, log: (line: string) => void, workspaceIds?: string[]): Promise<void> {
  let lastProgress = Date.now();
  let lastState = '';
  let lastLog = Date.now();
  for (;;) {
    await sleep(POLL_MS);
    const [row] = workspaceIds
      ? await sql<{ open: number }[]>`
          select (select count(*) from webhook_outbox where workspace_id = any (${workspaceIds}::uuid[]))
               + (select count(*) from webhook_deliveries
                   where workspace_id = any (${workspaceIds}::uuid[]) and status in ('pending', 'sending') and attempt_count = 0) as open`
      : await sql<{ open: number }[]>`
          select (select count(*) from webhook_outbox)
               + (select count(*) from webhook_deliveries where status in ('pending', 'sending') and attempt_count = 0) as open`;
    if (Number(row!.open) === 0) return;
    const { requests } = await receiver.summary();
    // Progress is an arrival or a fan-out step (events leaving the outbox become deliveries).
    const state = `${requests}/${row!.open}`;
    if (state !== lastState) {
      lastState = state;
      lastProgress = Date.now();
    } else if (Date.now() - lastProgress > STALL_TIMEOUT_MS) {
      throw new Error(`webhook delivery stalled: ${row!.open} events or first attempts still open`);
    }
    if (Date.now() - lastLog > PROGRESS_LOG_MS) {
      lastLog = Date.now();
      log(`  ... ${requests} requests at the receiver, ${row!.open} events in the outbox or first attempts open`);
    }
  }
}

export async function runWebhookBenchmark(db: BenchDatabase, _seeded: SeededData, options: WebhookOptions): Promise<WebhookResults> {
  const { sql } = db;
  const { log } = options;
  const setup = await ensureWebhookWorkspaces(sql, Math.max(options.workspaces, options.fairnessSmallWorkspaces + 1), log);
  const workspaces = setup.workspaces.slice(0, options.workspaces);

  const certs = await testCertificates();
  const certFile = join(options.workDir, 'receiver-cert.pem');
  const keyFile = join(options.workDir, 'receiver-key.pem');
  writeFileSync(certFile, certs.certPem);
  writeFileSync(keyFile, certs.keyPem, { mode: 0o600 });
  const { receiver, port } = await startReceiver(options.workDir, certFile, keyFile);

  const masterKey = randomBytes(32).toString('base64');
  const env = {
    DATABASE_URL: db.url,
    OFFERDESK_MASTER_KEY: masterKey,
    OFFERDESK_WEBHOOK_DEV_RESOLVE: `hooks.test=127.0.0.1:${port}`,
    NODE_EXTRA_CA_CERTS: certs.caFile,
    WEBHOOK_STARTS_PER_MINUTE: LIFTED_STARTS,
    WEBHOOK_WORKER_CONCURRENCY: String(options.concurrency),
    REDIS_URL: '',
  };
  const config = loadConfig({ ...process.env, ...env });
  const management: ManagementDeps = {
    sql,
    clock: systemClock,
    config: config.webhooks,
    masterKey: loadMasterKeys(config, createLogger('warn')).current,
  };

  try {
    await clearEndpoints(sql);
    const started = performance.now();
    for (const [i, ws] of setup.workspaces.entries()) {
      for (let e = 1; e <= options.endpointsPerWorkspace; e++) {
        await addEndpoint(management, { workspaceId: ws.id, url: `https://hooks.test/ws/${i}/${e}`, events: [...OFFER_WEBHOOK_TYPES], actorId: ws.ownerId });
      }
    }
    log(`added ${setup.workspaces.length * options.endpointsPerWorkspace} endpoints in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    /** One measured run: commit the events, let `workers` workers deliver every first attempt. */
    const measure = async (label: string, events: { workspaceId: string; count: number }[], workers: number): Promise<RunStats> => {
      await clearDeliveries(sql);
      await receiver.reset();
      const fleet = await startWorkers(workers, env, options.workDir);
      const commitsBefore = await xactCommits(sql);
      const { committedAt, ids } = await commitEvents(sql, events);
      await waitForFirstAttempts(sql, receiver, log);
      const commitsAfter = await xactCommits(sql);
      const counts = await fleet.stop();
      const [attempted] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts`;
      const arrivals = (await receiver.arrivals()).filter(([, path]) => !path.startsWith('/fail/'));
      const summary = await receiver.summary();
      const latencies = arrivals.map(([, , at]) => at - committedAt);
      const last = largest(arrivals.map(([, , at]) => at));
      const attempts = attempted!.n || 1;
      const stats: RunStats = {
        events: ids.length,
        deliveries: arrivals.length,
        seconds: (last - committedAt) / 1000,
        perSecond: arrivals.length / ((last - committedAt) / 1000),
        e2eP50Ms: percentile(latencies, 50),
        e2eP99Ms: percentile(latencies, 99),
        duplicates: summary.duplicates,
        workers,
        statementsPerDelivery: counts.statements / attempts,
        transactionsPerDelivery: counts.transactions / attempts,
        // Two polls of this process per POLL_MS are in it too; an upper bound.
        commitsPerDelivery: (commitsAfter - commitsBefore) / attempts,
      };
      log(
        `${label.padEnd(22)} ${stats.deliveries} deliveries in ${stats.seconds.toFixed(1)} s = ${stats.perSecond.toFixed(0)}/s, ` +
          `commit->receiver p50 ${stats.e2eP50Ms.toFixed(0)} ms p99 ${stats.e2eP99Ms.toFixed(0)} ms, duplicates ${stats.duplicates}, ` +
          `${stats.statementsPerDelivery?.toFixed(1)} statements/delivery`,
      );
      return stats;
    };
    const spread = (total: number) =>
      workspaces.map((ws, i) => ({ workspaceId: ws.id, count: Math.floor(total / workspaces.length) + (i < total % workspaces.length ? 1 : 0) }));

    // 1. Throughput from a backlog.
    const throughput = await measure('throughput (1 worker)', spread(options.events), 1);

    // 2. Baseline: the same bodies, same sender, same concurrency, no database.
    await receiver.reset();
    const baselineCount = Math.min(throughput.deliveries, 40_000);
    const baseline = await runJson<WebhookResults['baseline']>('baseline-sender', 'webhooks/baseline-sender.ts', [String(baselineCount), String(options.concurrency)], env);
    const ratio = throughput.perSecond / baseline.perSecond;
    log(`baseline sender        ${baseline.sent} deliveries in ${baseline.seconds.toFixed(1)} s = ${baseline.perSecond.toFixed(0)}/s; worker/baseline ${ratio.toFixed(2)}`);

    // 3. Latency at a steady rate below capacity.
    await clearDeliveries(sql);
    await receiver.reset();
    const fleet = await startWorkers(1, env, options.workDir);
    const committed = new Map<string, number>();
    const interval = 1000 / options.latencyRate;
    const t0 = performance.now();
    for (let i = 0; i < options.latencyEvents; i++) {
      const ws = workspaces[i % workspaces.length]!;
      const { committedAt, ids } = await commitEvents(sql, [{ workspaceId: ws.id, count: 1 }]);
      committed.set(ids[0]!, committedAt);
      const wait = t0 + (i + 1) * interval - performance.now();
      if (wait > 0) await sleep(wait);
    }
    await waitForFirstAttempts(sql, receiver, log);
    const latencyCounts = await fleet.stop();
    const lat = (await receiver.arrivals()).map(([key, , at]) => at - committed.get(key.slice(key.indexOf(' ') + 1))!);
    const [latAttempts] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts`;
    const latency = {
      events: options.latencyEvents,
      deliveries: lat.length,
      seconds: (performance.now() - t0) / 1000,
      perSecond: lat.length / ((performance.now() - t0) / 1000),
      e2eP50Ms: percentile(lat, 50),
      e2eP99Ms: percentile(lat, 99),
      duplicates: (await receiver.summary()).duplicates,
      workers: 1,
      statementsPerDelivery: latencyCounts.statements / (latAttempts!.n || 1),
      transactionsPerDelivery: latencyCounts.transactions / (latAttempts!.n || 1),
      commitsPerDelivery: null,
      rate: options.latencyRate,
    };
    log(`latency at ${options.latencyRate} events/s   commit->receiver p50 ${latency.e2eP50Ms.toFixed(1)} ms p99 ${latency.e2eP99Ms.toFixed(1)} ms over ${lat.length} deliveries`);

    // 4. A smaller backlog: one worker (reference), failing endpoints in the mix, two workers.
    const smaller = spread(Math.max(options.workspaces, Math.floor(options.events / 5)));
    const reference = await measure('reference (1 worker)', smaller, 1);
    const failingCount = Math.max(1, Math.floor(workspaces.length / 10));
    const failing: string[] = [];
    for (const [i, ws] of workspaces.slice(0, failingCount).entries()) {
      const added = await addEndpoint(management, { workspaceId: ws.id, url: `https://hooks.test/fail/${i}`, events: [...OFFER_WEBHOOK_TYPES], actorId: ws.ownerId });
      failing.push(added.id);
    }
    const withFailingRun = await measure(`with ${failingCount} failing endpoints`, smaller, 1);
    const [failedAttempts] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts where not succeeded`;
    for (const [i, id] of failing.entries()) await removeEndpoint(management, { endpointId: id, actorId: workspaces[i]!.ownerId });
    const two = await measure('scale-out (2 workers)', smaller, 2);
    const slowdown = 1 - withFailingRun.perSecond / reference.perSecond;

    // 5. Fairness: one huge backlog committed first, then 10 events for each other workspace.
    await clearDeliveries(sql);
    await receiver.reset();
    const big = setup.workspaces[0]!;
    const small = setup.workspaces.slice(1, 1 + options.fairnessSmallWorkspaces);
    const fairFleet = await startWorkers(1, env, options.workDir);
    const bigCommit = await commitEvents(sql, [{ workspaceId: big.id, count: options.fairnessBigEvents }]);
    const smallCommit = await commitEvents(sql, small.map((ws) => ({ workspaceId: ws.id, count: options.fairnessSmallEvents })));
    await waitForFirstAttempts(sql, receiver, log, small.map((ws) => ws.id));
    const arrivals = await receiver.arrivals();
    await fairFleet.stop();
    const smallIds = new Set(smallCommit.ids);
    const smallTimes = arrivals.filter(([key]) => smallIds.has(key.slice(key.indexOf(' ') + 1))).map(([, , at]) => at - smallCommit.committedAt);
    const lastSmall = largest(smallTimes) + smallCommit.committedAt;
    const bigIds = new Set(bigCommit.ids);
    const [bigMessages] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_messages where workspace_id = ${big.id}::uuid`;
    const fairness = {
      bigEventsCommitted: bigCommit.ids.length,
      bigEventsTurnedIntoWebhooks: bigMessages!.n,
      bigEventsDroppedByLimit: bigCommit.ids.length - bigMessages!.n,
      smallWorkspaces: small.length,
      smallDeliveries: smallTimes.length,
      smallFirstAttemptsP50Ms: percentile(smallTimes, 50),
      smallFirstAttemptsMaxMs: largest(smallTimes),
      bigDeliveriesBeforeLastSmall: arrivals.filter(([key, , at]) => bigIds.has(key.slice(key.indexOf(' ') + 1)) && at <= lastSmall).length,
    };
    log(
      `fairness               ${small.length} small workspaces: all ${smallTimes.length} first attempts within ${(fairness.smallFirstAttemptsMaxMs / 1000).toFixed(2)} s ` +
        `(p50 ${(fairness.smallFirstAttemptsP50Ms / 1000).toFixed(2)} s) beside ${fairness.bigEventsCommitted} events of one workspace ` +
        `(${fairness.bigEventsTurnedIntoWebhooks} became webhooks, ${fairness.bigEventsDroppedByLimit} dropped by the 1,000-waiting limit)`,
    );
    await clearDeliveries(sql);

    return {
      throughput,
      baseline,
      ratio,
      latency,
      failingEndpoints: { reference, withFailing: { ...withFailingRun, failingEndpoints: failingCount, failedAttempts: failedAttempts!.n }, slowdown },
      scaleOut: { one: reference, two, ratio: two.perSecond / reference.perSecond },
      fairness,
      method:
        'Events are outbox rows committed in bulk (what product actions commit), pointing at seeded timeline entries. ' +
        'Deliveries/s = first attempts arrived at the receiver / (last arrival - commit). End-to-end = receiver arrival - commit, wall clock. ' +
        'Statements per delivery: every statement the worker process sent (postgres.js debug hook; begin/commit included) / attempts recorded. ' +
        'Commits per delivery: pg_stat_database.xact_commit delta of the bench database / attempts (includes the orchestrator polling).',
    };
  } finally {
    await receiver.proc.stop();
  }
}

/** Math.max(...values) overflows the call stack at a few hundred thousand arrivals. */
function largest(values: number[]): number {
  return values.reduce((max, value) => (value > max ? value : max), -Infinity);
}
