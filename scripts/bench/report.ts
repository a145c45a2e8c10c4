import { describeDatabase, type DatabaseSetup } from './database.js';
import type { BenchOptions } from './options.js';
import type { ReadResults } from './read-api.js';
import type { RunStats } from './webhooks/harness.js';
import type { WebhookResults } from './webhooks/run.js';

/** The printed table and the sanity checks of a run (ratios are reported, never asserted). */
export interface BenchResults {
  kind: 'full' | 'smoke';
  finishedAt: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string };
  database: { name: string } & DatabaseSetup;
  seed: Record<string, unknown> & { offers: number; events: number; seedSeconds: number | null; originalSeedSeconds: number };
  read: ReadResults | null;
  webhooks: WebhookResults | null;
  webhookError: string | null;
  durations: { seedSeconds: number | null; readSeconds: number | null; webhookSeconds: number | null; totalSeconds: number };
}

/** The benchmark's targets (docs/performance.md), checked and printed; a miss is reported, not failed. */
export const TARGETS = {
  ...{ seedSeconds: 180, readRatio: 0.6, readCpuRatio: 2, expiredLatencyRatio: 2, deepPageRatio: 1.2, rssMb: 250 },
  ...{ webhookRatio: 0.5, webhookP50Ms: 250, failingEndpointSlowdown: 0.1, webhookBacklogShare: 0.8, webhookScaleOut: 1.7, webhookFairnessP99Ms: 5_000 },
  ...{ webhookStatementsPerDelivery: 1.5, webhookTransactionsPerDelivery: 0.2, workspaceScaleShare: 0.8, newlyActiveP99Ms: 5_000 },
  // What a delivery may cost PostgreSQL in the throughput run (pg-cost.ts), and the rate those costs allow.
  ...{ webhookWalBytesPerDelivery: 3_200, webhookPgCpuUsPerDelivery: 250, webhookStorageRatio: 0.4 },
  ...{ logPageP95Ms: 50, logWorkerShare: 0.9, logRetentionMs: 1_000 },
};

const f = (value: number | null | undefined, digits = 0) => (value === null || value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits));
const target = (text: string, ok: boolean) => `  ${text}  ${ok ? 'ok' : 'MISSED'}`;

const cpuRatio = (s: ReadResults['scenarios'][number]) => (s.service.serverCpuMsPerRequest ?? NaN) / (s.baseline.serverCpuMsPerRequest ?? NaN);

/** The measured webhook runs, by their label in the table. */
const webhookRuns = (w: WebhookResults): [string, RunStats][] => [
  ['throughput, 1 worker', w.throughput],
  ['latency (paced)', w.latency],
  ...w.failingEndpoints.references.flatMap((run, i) => [[i ? 'reference again' : 'reference, 1 worker', run], ...w.failingEndpoints.withFailing.slice(i, i + 1).map((f) => ['with failing endpoints', f])] as [string, RunStats][]),
  ['scale-out, 2 workers', w.scaleOut.two],
];

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function readTargets(read: ReadResults, options: BenchOptions): string[] {
  const worstRatio = Math.min(...read.scenarios.map((s) => s.ratio));
  const worstCpu = Math.max(...read.scenarios.filter((s) => s.name !== 'offers-expired').map(cpuRatio));
  const p50 = (name: string) => read.scenarios.find((s) => s.name === name)?.service.p50Ms ?? NaN;
  const expired = p50('offers-expired') / p50('offers-page-1');
  const deep = Math.max(read.deepPageLatencyRatio, read.deepPageTimeRatio);
  return [
    target(`service req/s >= ${TARGETS.readRatio}x baseline in every scenario: worst ${f(worstRatio, 2)}x`, worstRatio >= TARGETS.readRatio),
    target(`service CPU per request <= ${TARGETS.readCpuRatio}x baseline (all but status=expired): worst ${f(worstCpu, 2)}x`, worstCpu <= TARGETS.readCpuRatio),
    target(`status=expired p50 <= ${TARGETS.expiredLatencyRatio}x page 1's under the same load: ${f(expired, 2)}x`, expired <= TARGETS.expiredLatencyRatio),
    target(
      `page ${options.read.deepPage.toLocaleString('en')} within ${TARGETS.deepPageRatio}x page 1: p50 ${f(read.deepPageLatencyRatio, 2)}x, time per request ${f(read.deepPageTimeRatio, 2)}x`,
      deep <= TARGETS.deepPageRatio,
    ),
    target(`service peak RSS < ${TARGETS.rssMb} MB: ${f(read.servicePeakRssMb)} MB`, (read.servicePeakRssMb ?? Infinity) < TARGETS.rssMb),
  ];
}

function webhookTargets(w: WebhookResults): string[] {
  const backlogShare = w.backlog.length > 1 ? w.backlog[w.backlog.length - 1]!.perSecond / w.backlog[0]!.perSecond : NaN;
  const { statementsPerDelivery: st, transactionsPerDelivery: tx } = w.throughput;
  const fe = w.failingEndpoints;
  return [
    target(`worker >= ${TARGETS.webhookRatio}x baseline sender: ${f(w.ratio, 2)}x`, w.ratio >= TARGETS.webhookRatio),
    target(`e2e p50 < ${TARGETS.webhookP50Ms} ms when nothing waits: ${f(w.latency.e2eP50Ms, 1)} ms`, w.latency.e2eP50Ms < TARGETS.webhookP50Ms),
    target(
      `failing (500) endpoints lower the others' rate by <= ${TARGETS.failingEndpointSlowdown * 100}%: ${f(fe.slowdown * 100, 1)}% (${fe.withFailing[0]?.failingEndpoints} failing, ` +
        `${fe.withFailing.length} runs against the mean of the ${fe.references.length} reference runs around them, which lie ${f((fe.referenceSpread ?? NaN) * 100, 1)}% apart)`,
      fe.slowdown <= TARGETS.failingEndpointSlowdown,
    ),
    target(`two workers >= ${TARGETS.webhookScaleOut}x one, each event once: ${f(w.scaleOut.ratio, 2)}x, duplicates ${w.scaleOut.two.duplicates}`, w.scaleOut.ratio >= TARGETS.webhookScaleOut && w.scaleOut.two.duplicates === 0),
    target(`rate with the largest backlog >= ${TARGETS.webhookBacklogShare}x the smallest: ${f(backlogShare, 2)}x`, backlogShare >= TARGETS.webhookBacklogShare),
    target(
      `<= ${TARGETS.webhookStatementsPerDelivery} statements and <= ${TARGETS.webhookTransactionsPerDelivery} transactions per delivery: ${f(st, 2)} and ${f(tx, 3)}`,
      (st ?? Infinity) <= TARGETS.webhookStatementsPerDelivery && (tx ?? Infinity) <= TARGETS.webhookTransactionsPerDelivery,
    ),
    target(`small workspaces' first attempts p99 <= ${TARGETS.webhookFairnessP99Ms / 1000} s beside a flood: ${f(w.fairness.smallFirstAttemptsP99Ms / 1000, 2)} s`, w.fairness.smallFirstAttemptsP99Ms <= TARGETS.webhookFairnessP99Ms),
    ...costTargets(w),
    ...scaleTargets(w),
  ];
}

/** The bench database's WAL where pg_walinspect read it, else the whole server's (which other databases inflate). */
const walOf = (pg: RunStats['pg']) =>
  pg.databaseWalBytesPerDelivery === null ? { bytes: pg.walBytesPerDelivery, records: pg.walRecordsPerDelivery, of: 'the server' } : { bytes: pg.databaseWalBytesPerDelivery, records: pg.databaseWalRecordsPerDelivery!, of: 'its database' };

function costTargets({ throughput: { pg }, ratio }: WebhookResults): string[] {
  const cpu = pg.pgCpuUsPerDelivery;
  const wal = walOf(pg);
  return [
    target(`throughput run: <= ${TARGETS.webhookWalBytesPerDelivery.toLocaleString('en')} WAL bytes per delivery: ${f(wal.bytes)} (${wal.of})`, wal.bytes <= TARGETS.webhookWalBytesPerDelivery),
    target(`throughput run: <= ${TARGETS.webhookPgCpuUsPerDelivery} µs of PostgreSQL CPU per delivery: ${cpu === null ? 'not measured' : `${f(cpu)} µs`}`, (cpu ?? Infinity) <= TARGETS.webhookPgCpuUsPerDelivery),
    target(`with those costs, worker >= ${TARGETS.webhookStorageRatio}x baseline sender: ${f(ratio, 2)}x`, ratio >= TARGETS.webhookStorageRatio),
  ];
}

function scaleTargets({ workspaceScale: ws, deliveryLog: dl, throughput }: WebhookResults): string[] {
  const rows = [];
  if (ws) {
    const p99 = ws.scale.newlyActive?.p99Ms ?? NaN;
    rows.push(
      target(`${ws.busy} busy + ${ws.idle} idle workspaces >= ${TARGETS.workspaceScaleShare}x the rate over ${ws.reference.workspaces}: ${f(ws.ratio, 2)}x`, ws.ratio >= TARGETS.workspaceScaleShare),
      target(`newly active workspaces' first attempt p99 <= ${TARGETS.newlyActiveP99Ms / 1000} s beside them: ${f(p99 / 1000, 2)} s`, p99 <= TARGETS.newlyActiveP99Ms),
    );
  }
  if (dl) {
    const n = dl.rows.toLocaleString('en');
    rows.push(
      target(`delivery log of ${n}: every filter p95 < ${TARGETS.logPageP95Ms} ms over HTTP: worst ${f(dl.worstP95Ms, 1)} ms`, dl.worstP95Ms < TARGETS.logPageP95Ms),
      target(`worker beside that log >= ${TARGETS.logWorkerShare}x its rate with an empty log: ${f(dl.ratio, 2)}x (${f(dl.withLog.perSecond)} vs ${f(throughput.perSecond)}/s)`, dl.ratio >= TARGETS.logWorkerShare),
      target(`retention of one day (${dl.retention.rows.toLocaleString('en')} deliveries) < ${TARGETS.logRetentionMs} ms: ${f(dl.retention.ms)} ms`, dl.retention.ms < TARGETS.logRetentionMs),
    );
  }
  return rows;
}

export function printReport(results: BenchResults, options: BenchOptions, log: (line: string) => void): void {
  const { seed, read, webhooks: w, database: d } = results;
  // Not framed in "=": a CI log reader that knows pytest could take such a line for its summary.
  log(`\n#### Offerdesk benchmark (${results.kind}) on ${results.machine.cpus} CPUs, Node ${results.machine.node}`);
  log(`database: ${describeDatabase(d)}, database ${d.name}`);
  const seedTime = seed.seedSeconds === null ? `reused (seeded earlier in ${f(seed.originalSeedSeconds, 1)} s)` : `seeded in ${f(seed.seedSeconds, 1)} s`;
  log(`seed: ${seed.offers.toLocaleString('en')} offers, ${seed.events.toLocaleString('en')} timeline entries; ${seedTime}`);
  if (!options.smoke) log(target(`seed < ${TARGETS.seedSeconds} s: ${f(seed.originalSeedSeconds, 1)} s`, seed.originalSeedSeconds < TARGETS.seedSeconds));
  if (read) {
    log(`\nRead API, ${options.read.connections} connections, ${options.read.durationSeconds} s per scenario and side (latency in ms, RSS in MB)`);
    const header = ['scenario', 'service req/s', 'baseline req/s', 'ratio', 'svc p50', 'svc p99', 'base p50', 'base p99', 'svc CPU ms/req', 'base CPU ms/req', 'svc peak RSS', 'statuses'];
    const rows = read.scenarios.map(({ name, service: s, baseline: b, ratio, statusesAsExpected }) => [
      ...[name, f(s.requestsPerSecond), f(b.requestsPerSecond), f(ratio, 2), f(s.p50Ms, 2), f(s.p99Ms, 2), f(b.p50Ms, 2), f(b.p99Ms, 2)],
      ...[f(s.serverCpuMsPerRequest, 3), f(b.serverCpuMsPerRequest, 3), f(s.peakRssMb), statusesAsExpected ? 'as expected' : 'UNEXPECTED'],
    ]);
    log(table(header, rows));
    if (!options.smoke) log(['targets:', ...readTargets(read, options)].join('\n'));
  }
  if (w) {
    log(`\nWebhook delivery (${options.webhooks.concurrency} concurrent attempts per worker, start limit lifted)`);
    const header = ['run', 'events', 'deliveries', 'per s', 'e2e p50 ms', 'e2e p99 ms', 'duplicates', 'stmts/delivery', 'tx/delivery', 'PG CPU µs', 'WAL bytes', 'full pages', 'WAL records', 'server WAL', 'index entries'];
    const rows = webhookRuns(w).map(([name, r]) => [
      ...[name, String(r.events), String(r.deliveries), f(r.perSecond), f(r.e2eP50Ms), f(r.e2eP99Ms), String(r.duplicates), f(r.statementsPerDelivery, 1), f(r.transactionsPerDelivery, 2)],
      ...[f(r.pg.pgCpuUsPerDelivery), f(r.pg.databaseWalBytesPerDelivery), f(r.pg.databaseWalFpiBytesPerDelivery), f(r.pg.databaseWalRecordsPerDelivery, 1), f(r.pg.walBytesPerDelivery), f(r.pg.indexEntriesPerDelivery, 1)],
    ]);
    log(table(header, rows));
    log(`(PostgreSQL per delivery: CPU of the bench database's backends; its WAL (pg_walinspect; full pages come with checkpoints, which other databases can force) and the whole server's (pg_stat_wal); index entries = (inserts + non-HOT updates) x indexes)`);
    log(`baseline sender (no database): ${f(w.baseline.perSecond)} deliveries/s over ${w.baseline.sent}; worker/baseline ${f(w.ratio, 2)}x`);
    const tp = w.throughput.pg;
    const polluted = webhookRuns(w).filter(([, r]) => r.pg.otherDatabasesRowsWritten > 0).map(([name]) => name);
    if (polluted.length > 0) log(`other databases on the server wrote meanwhile (in the server's WAL, not the database's): ${polluted.join(', ')}`);
    log(`\nthroughput run, index entries per delivery by table (partial indexes counted for every row: an upper bound)`);
    log(table(['table', 'inserted', 'updated', 'HOT', 'deleted', 'indexes (partial)', 'entries/delivery'], tp.tables.map((t) => [t.table, String(t.inserted), String(t.updated), String(t.hotUpdated), String(t.deleted), `${t.indexes} (${t.partialIndexes})`, f(t.indexEntriesPerDelivery, 2)])));
    log(`background (walwriter, checkpointer, background writer; the whole server's, not counted above): ${f(tp.backgroundCpuUsPerDelivery)} µs CPU per delivery`);
    log(`\nthroughput against backlog (1 worker, first ${w.backlog[0]?.measured ?? '-'} first attempts from the first arrival)`);
    log(table(['open deliveries', 'per s', 'duplicates'], w.backlog.map((r) => [String(r.openDeliveries), f(r.perSecond), String(r.duplicates)])));
    const fair = w.fairness;
    log(
      `fairness: ${fair.smallWorkspaces} small workspaces' ${fair.smallDeliveries} first attempts all done ${f(fair.smallFirstAttemptsMaxMs / 1000, 2)} s after commit ` +
        `(p50 ${f(fair.smallFirstAttemptsP50Ms / 1000, 2)} s), beside ${fair.bigEventsCommitted} events of one workspace ` +
        `(${fair.bigEventsTurnedIntoWebhooks} turned into webhooks; ${fair.bigEventsDroppedByLimit} dropped by the 1,000-waiting-events limit)`,
    );
    if (w.workspaceScale) {
      log(`\nmany workspaces (1 worker, one endpoint each, first ${w.workspaceScale.reference.measured} first attempts from the first arrival)`);
      const rows = [w.workspaceScale.reference, w.workspaceScale.scale].map((r) => [r.label, String(r.openDeliveries), f(r.perSecond), r.newlyActive ? `p50 ${f(r.newlyActive.p50Ms / 1000, 2)} p99 ${f(r.newlyActive.p99Ms / 1000, 2)} s` : '-']);
      log(table(['run', 'open deliveries', 'per s', 'newly active first attempts'], rows));
    }
    if (w.deliveryLog) {
      log(`\ndelivery log of ${w.deliveryLog.rows.toLocaleString('en')} deliveries over ${w.deliveryLog.days} days (the console over HTTP, pages of 50)`);
      log(table(['filter', 'p50 ms', 'p95 ms', 'max ms'], w.deliveryLog.pages.map((p) => [p.name, f(p.p50Ms, 1), f(p.p95Ms, 1), f(p.maxMs, 1)])));
    }
    if (!options.smoke) log(['targets:', ...webhookTargets(w)].join('\n'));
  }
  const { readSeconds, webhookSeconds, totalSeconds } = results.durations;
  log(`\ndurations: seed ${seed.seedSeconds === null ? 'reused' : `${f(seed.seedSeconds)} s`}, read ${f(readSeconds)} s, webhooks ${f(webhookSeconds)} s, total ${f(totalSeconds)} s`);
}

/** The run beside the results file it replaced, only when both ran on the same setup (else not comparable). */
export function compareWithPrevious(results: BenchResults, previous: BenchResults | null, file: string, log: (line: string) => void): void {
  if (!previous) return;
  const setup = (r: BenchResults) => `${r.kind} run, ${r.machine.cpus} CPUs, Node ${r.machine.node}, ${describeDatabase(r.database)}`;
  log(`\ncompared with the previous ${file} (${previous.finishedAt}):`);
  if (setup(results) !== setup(previous)) {
    log(`  NOT COMPARED: it ran on another setup\n    previous: ${setup(previous)}\n    this run: ${setup(results)}`);
    return;
  }
  const before = new Map((previous.read?.scenarios ?? []).map((s) => [s.name, s]));
  for (const s of results.read?.scenarios ?? []) {
    const p = before.get(s.name);
    if (p) log(`  ${s.name.padEnd(18)} req/s ratio ${f(p.ratio, 2)} -> ${f(s.ratio, 2)}, CPU per request ${f(cpuRatio(p), 2)}x -> ${f(cpuRatio(s), 2)}x baseline`);
  }
  if (previous.webhooks && results.webhooks) log(`  webhooks worker/baseline ${f(previous.webhooks.ratio, 2)} -> ${f(results.webhooks.ratio, 2)}`);
  const [was, now] = [previous.webhooks?.throughput.pg, results.webhooks?.throughput.pg];
  // A results file whose run did not measure the PostgreSQL cost has no `pg`.
  if (was && now)
    log(
      `  webhooks throughput per delivery: WAL ${f(walOf(was).bytes)} -> ${f(walOf(now).bytes)} bytes, ${f(walOf(was).records, 1)} -> ${f(walOf(now).records, 1)} records (${walOf(was).of === walOf(now).of ? walOf(now).of : `${walOf(was).of} -> ${walOf(now).of}`}), ` +
        `PostgreSQL CPU ${f(was.pgCpuUsPerDelivery)} -> ${f(now.pgCpuUsPerDelivery)} µs, index entries ${f(was.indexEntriesPerDelivery, 1)} -> ${f(now.indexEntriesPerDelivery, 1)}`,
    );
}

/** What the smoke run checks: everything ran and the numbers are sane. Returns the problems. */
export function sanityProblems(results: BenchResults): string[] {
  const problems: string[] = results.webhookError ? [`webhooks: ${results.webhookError}`] : [];
  for (const s of results.read?.scenarios ?? []) {
    if (!s.statusesAsExpected) problems.push(`${s.name}: unexpected statuses or errors`);
    for (const [side, r] of [['service', s.service], ['baseline', s.baseline]] as const) {
      if (!(r.requests > 0 && r.requestsPerSecond > 0)) problems.push(`${s.name} ${side}: no requests completed`);
      if (!(r.p50Ms > 0 && r.p99Ms >= r.p50Ms)) problems.push(`${s.name} ${side}: latency percentiles not sane`);
    }
  }
  const w = results.webhooks;
  if (!w) return problems;
  // Not the failing-endpoints runs: their failed attempts are retried with the same webhook-id.
  const runs = [...webhookRuns(w).filter(([name]) => name !== 'with failing endpoints'), ...w.backlog.map((row) => [`backlog ${row.openDeliveries}`, row] as const)];
  for (const [name, run] of runs) {
    if (!(run.perSecond > 0)) problems.push(`webhooks ${name}: nothing delivered`);
    if (run.duplicates > 0) problems.push(`webhooks ${name}: ${run.duplicates} duplicate deliveries`);
  }
  // Every delivery writes its outcome: no WAL or no index entry means the cost was not measured.
  for (const [name, run] of webhookRuns(w))
    if (!(run.pg.walBytesPerDelivery > 0 && run.pg.indexEntriesPerDelivery > 0)) problems.push(`webhooks ${name}: no WAL or index entries counted`);
  if (!(w.baseline.ok > 0)) problems.push('webhooks baseline: nothing delivered');
  if (w.fairness.smallDeliveries === 0) problems.push('webhooks fairness: no small-workspace delivery arrived');
  return problems;
}
