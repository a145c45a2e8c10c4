import { removeEndpoint } from '../../../src/webhooks/management/endpoints.js';
import type { BenchDatabase } from '../database.js';
import { percentile } from '../numbers.js';
import { runJson, sleep } from '../processes.js';
import { addBenchEndpoints, addHook, allAt, backlogRun, commitAll, eventOf, measure, spread, startWebhookBench, startWorkers, waitForFirstAttempts, type Bench, type Committed, type RunStats, type WebhookOptions } from './harness.js';
import { deliveryLogPhase } from '../delivery-log/run.js';
import { workspaceScalePhase } from './scale.js';
import { clearDeliveries, commitEvents } from './setup.js';

/** Webhook delivery: workers (start limit lifted) against a local HTTPS receiver, phase by phase (docs/performance.md). */

/** As bench/results.json holds it; ratio = worker deliveries/s over the baseline's (targets >= 0.5, the storage targets' >= 0.4). */
export type WebhookResults = Awaited<ReturnType<typeof runWebhookBenchmark>>;

/** The baseline sends at most this many of the throughput run's deliveries again. */
const BASELINE_MAX_DELIVERIES = 40_000;
const METHOD =
  'Events are outbox rows committed in bulk (what product actions commit), pointing at seeded timeline entries. ' +
  'Deliveries/s = first attempts arrived at the receiver / (last arrival - first commit). End-to-end = receiver arrival - commit, wall clock. ' +
  'Statements per delivery: every statement the worker process sent (postgres.js debug hook; begin/commit included) / attempts at the receiver. ' +
  'PostgreSQL per delivery (pg): from the worker start to the last arrival, over first attempts arrived: CPU of the bench database\'s backends (/proc, sampled each second; ' +
  'a backend that exits loses its last second, so low if anything), WAL bytes and records of the bench database (database*, pg_walinspect: its blocks and its transactions\' commits) and of the whole server (pg_stat_wal, which other databases inflate), ' +
  'index entries = per table (inserts + non-HOT updates) x its indexes (partial ones counted for every row: an upper bound). ' +
  'Backlog rows: open deliveries written directly (as fan-out leaves them), one worker started, rate from its first arrival to the measured count.';

export async function runWebhookBenchmark(db: BenchDatabase, options: WebhookOptions) {
  const b = await startWebhookBench(db, options);
  try {
    await addBenchEndpoints(b);
    const throughput = await measure(b, 'throughput (1 worker)', 1, commitAll(b, spread(b, options.events)));
    const baseline = await baselinePhase(b, throughput);
    const latency = await latencyPhase(b);
    const { failingEndpoints, scaleOut } = await smallerBacklogPhase(b);
    const backlog = await backlogPhase(b);
    const fairness = await fairnessPhase(b);
    await clearDeliveries(b.sql);
    const workspaceScale = options.scale.busy > 0 ? await workspaceScalePhase(b) : null;
    const deliveryLog = options.logRows > 0 ? await deliveryLogPhase(b, throughput) : null;
    return { throughput, baseline, ratio: throughput.perSecond / baseline.perSecond, latency, failingEndpoints, scaleOut, backlog, fairness, workspaceScale, deliveryLog, method: METHOD };
  } finally {
    await b.receiver.proc.stop();
  }
}

/** The same deliveries through the project's sender at the same concurrency, without the database. */
async function baselinePhase(b: Bench, throughput: RunStats) {
  await b.receiver.reset();
  const count = Math.min(throughput.deliveries, BASELINE_MAX_DELIVERIES);
  const baseline = await runJson<{ sent: number; ok: number; seconds: number; perSecond: number }>('baseline-sender', 'webhooks/baseline-sender.ts', [String(count), String(b.options.concurrency)], b.env);
  b.log(`baseline sender        ${baseline.sent} deliveries in ${baseline.seconds.toFixed(1)} s = ${baseline.perSecond.toFixed(0)}/s; worker/baseline ${(throughput.perSecond / baseline.perSecond).toFixed(2)}`);
  return baseline;
}

/** Events committed one by one at a steady rate below capacity (nothing waits). */
async function latencyPhase(b: Bench) {
  const { latencyEvents: count, latencyRate: rate } = b.options;
  const paced = async () => {
    const committed: Committed = new Map();
    const t0 = performance.now();
    for (let i = 0; i < count; i++) {
      for (const [id, at] of allAt(await commitEvents(b.sql, [{ workspaceId: b.workspaces[i % b.workspaces.length]!.id, count: 1 }]))) committed.set(id, at);
      const wait = t0 + ((i + 1) * 1000) / rate - performance.now();
      if (wait > 0) await sleep(wait);
    }
    return committed;
  };
  return { ...(await measure(b, `latency at ${rate} events/s`, 1, paced)), rate };
}

/**
 * A smaller backlog: reference and failing-endpoint runs in turn (R F R F R), then two workers. Two
 * runs can lie as far apart as the 10% bound itself, so both failing runs are set against the mean
 * of the three references around them.
 */
async function smallerBacklogPhase(b: Bench) {
  const { sql, workspaces } = b;
  const smaller = commitAll(b, spread(b, Math.max(b.options.workspaces, Math.floor(b.options.events / 5))));
  const references = [await measure(b, 'reference (1 worker)', 1, smaller)];
  const failingCount = Math.max(1, Math.floor(workspaces.length / 10));
  const withFailing = [];
  for (let round = 0; round < 2; round++) {
    const failing = [];
    for (const [i, ws] of workspaces.slice(0, failingCount).entries()) failing.push(await addHook(b, ws, `/fail/${i}`));
    const run = await measure(b, `with ${failingCount} failing endpoints`, 1, smaller);
    const [failed] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts where not succeeded`;
    withFailing.push({ ...run, failingEndpoints: failingCount, failedAttempts: failed!.n });
    for (const [i, id] of failing.entries()) await removeEndpoint(b.management, { endpointId: id, actorId: workspaces[i]!.ownerId });
    references.push(await measure(b, 'reference again', 1, smaller));
  }
  const mean = (runs: RunStats[]) => runs.reduce((sum, run) => sum + run.perSecond, 0) / runs.length;
  const rates = references.map((run) => run.perSecond);
  const two = await measure(b, 'scale-out (2 workers)', 2, smaller);
  return {
    // slowdown: 1 - the failing runs' mean rate / the references' (target <= 0.1); referenceSpread: the
    // references' largest - smallest rate over their mean, this phase's own spread.
    failingEndpoints: { references, withFailing, slowdown: 1 - mean(withFailing) / mean(references), referenceSpread: (Math.max(...rates) - Math.min(...rates)) / mean(references) },
    scaleOut: { one: references[0]!, two, ratio: two.perSecond / mean(references) },
  };
}

/** One worker's rate with open deliveries already queued, from its first arrival (start-up left out). */
async function backlogPhase(b: Bench) {
  const rows = [];
  for (const size of b.options.backlogSizes) {
    const perWorkspace = Math.max(1, Math.round(size / (b.workspaces.length * b.options.endpointsPerWorkspace)));
    const row = await backlogRun(b, b.workspaces.map((ws) => ws.id), perWorkspace, Math.min(size, b.options.backlogMeasured));
    b.log(`backlog ${String(row.openDeliveries).padStart(7)} open      first ${row.measured} first attempts at ${row.perSecond.toFixed(0)}/s`);
    rows.push(row);
  }
  return rows;
}

/** One huge backlog committed first, then 10 events for each other workspace. */
async function fairnessPhase(b: Bench) {
  const { sql, receiver, options, setup } = b;
  await clearDeliveries(sql);
  await receiver.reset();
  const big = setup.workspaces[0]!;
  const small = setup.workspaces.slice(1, 1 + options.fairnessSmallWorkspaces);
  const fleet = await startWorkers(1, b.env, options.workDir);
  const bigCommit = await commitEvents(sql, [{ workspaceId: big.id, count: options.fairnessBigEvents }]);
  const smallCommit = await commitEvents(sql, small.map((ws) => ({ workspaceId: ws.id, count: options.fairnessSmallEvents })));
  await waitForFirstAttempts(sql, receiver, b.log, small.map((ws) => ws.id));
  const arrivals = await receiver.arrivals();
  await fleet.stop();
  const smallIds = new Set(smallCommit.ids);
  const smallTimes = arrivals.filter(([key]) => smallIds.has(eventOf(key))).map(([, , at]) => at - smallCommit.committedAt).sort((x, y) => x - y);
  const [bigMessages] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_messages where workspace_id = ${big.id}::uuid`;
  return {
    bigEventsCommitted: bigCommit.ids.length,
    bigEventsTurnedIntoWebhooks: bigMessages!.n,
    bigEventsDroppedByLimit: bigCommit.ids.length - bigMessages!.n,
    smallWorkspaces: small.length,
    smallDeliveries: smallTimes.length,
    smallFirstAttemptsP50Ms: percentile(smallTimes, 50),
    smallFirstAttemptsP99Ms: percentile(smallTimes, 99),
    smallFirstAttemptsMaxMs: smallTimes.at(-1) ?? -Infinity,
  };
}
