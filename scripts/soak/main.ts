import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../test/support/offerdesk-command.js';
import { startAutoanalyzeStandIn } from '../bench/autoanalyze.js';
import { freePort, REPO_DIR, runJson, sleep, stopAllChildren, type NodeProcess } from '../bench/processes.js';
import { growthMbPerMinute, type MemorySample } from '../../test/support/memory-growth.js';
import { formatTable, heapMb, openWork, rssMb, type CheckRow } from './checks.js';
import { scheduleFaults, type FaultSchedule } from './faults.js';
import { Ledger } from './ledger.js';
import { parseOptions } from './options.js';
import { definedEnv, setUpWorkspaces, startConsole, startOfferTraffic, startReads } from './traffic.js';
import { migrateOld, prepareOldRelease, startOldWorker, type OldRelease } from './upgrade.js';
import { buildWorld, type World } from './world.js';

/**
 * `npm run soak [-- --minutes N]` (docs/reliability.md "Soak"): the service's processes under
 * steady traffic for N minutes (60 by default) while faults strike on a schedule, then a drain
 * and a table of checks. Exits 1 when a check fails, 2 on bad options.
 */
const options = parseOptions(process.argv.slice(2));
const log = (line: string) => process.stdout.write(`[soak] ${line}\n`);
const runMs = options.minutes * 60_000;
const short = options.minutes < 10;
/**
 * Memory is judged after each process's first ten minutes, from its first 12 minutes on to its
 * last 12 (a window holds at least one full collection of the heap), so only a process that lives
 * 34 minutes is judged; the faults that restart every process come early (scripts/soak/faults.ts).
 */
const MEMORY_WARMUP_MS = 10 * 60_000;
const MEMORY_WINDOW_MS = 12 * 60_000;
const MEMORY_JUDGED_LIFE_MINUTES = (MEMORY_WARMUP_MS + 2 * MEMORY_WINDOW_MS) / 60_000;
/**
 * Flat: RSS grows by at most 0.5 MB a minute and the V8 heap by 0.25 MB a minute (30 and 15 MB an
 * hour) after the warm-up. One delivery's body kept per delivery at the soak's rate would add
 * several MB a minute; caches that fill and stop are flat by then.
 */
const RSS_GROWTH_BOUND = 0.5;
const HEAP_GROWTH_BOUND = 0.25;
/** A run this long must judge memory; a shorter one says it could not. */
const MEMORY_JUDGED_FROM_MINUTES = 40;
const WORKSPACES = short ? 8 : 20;
const DRAIN_LIMIT_MS = short ? 150_000 : 12 * 60_000;

/** postgres.js can throw from a setImmediate when a connection closes under a write (see scripts/faults/main.ts). */
process.on('uncaughtException', (error) => {
  if (/postgres\/src\/connection\.js/.test(error.stack ?? '')) {
    log(`postgres.js defect in the soak's own pool (ignored): ${error.message}`);
    return;
  }
  log(`uncaught: ${error.stack ?? String(error)}`);
  process.exit(1);
});

ensureBuilt();
const workDir = mkdtempSync(join(tmpdir(), 'offerdesk-soak-'));
chmodSync(workDir, 0o711);
const ledger = new Ledger();
let world: World | undefined;
let old: OldRelease | undefined;
let oldWorker: NodeProcess | undefined;
let schedule: FaultSchedule | undefined;
let stopVacuumStandIn: (() => Promise<void>) | undefined;
let exitCode = 0;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    schedule?.cancel();
    void Promise.all([stopAllChildren(), world?.close()]).finally(() => {
      old?.cleanup();
      process.exit(130);
    });
  });
}

try {
  const started = Date.now();
  if (options.upgradeDrill) old = prepareOldRelease(log);
  world = await buildWorld({ workDir, ledger, log });
  const w = world;
  const env = () => definedEnv(w.env);
  // The old release's schema first when drilling the upgrade: its worker must run on it.
  if (old) log(`old schema: ${JSON.stringify(await migrateOld(old, w.env))}`);
  else await runJson('offerdesk migrate', 'bin/offerdesk.js', ['migrate', '--json'], env(), true);
  // A server with autovacuum off (as CI's is) would let the queue's dead rows pile up under every
  // claim, which production, with autovacuum on, never pays: the bench's stand-in vacuums where
  // autovacuum would, here on every table the service writes.
  const [setting] = await w.sql<{ autovacuum: string }[]>`show autovacuum`;
  stopVacuumStandIn = startAutoanalyzeStandIn(w.sql, setting?.autovacuum ?? 'on', log, 'all');
  const workspaces = await setUpWorkspaces(w, ledger, WORKSPACES, old?.dir);
  log(`${workspaces.length} workspaces, ${ledger.endpoints.size} endpoints (ok, flaky, slow ${'and'} gone)`);

  const trafficStarted = Date.now();
  const trafficEnds = trafficStarted + runMs;
  const offers = startOfferTraffic({
    world: w,
    ledger,
    workspaces,
    everyMs: short ? 150 : 250,
    // Offers left to expire: their offer.expired goes out two minutes after the expiry job.
    expiringUntil: short ? trafficStarted + 10_000 : trafficEnds - 4 * 60_000,
    log,
  });

  const drill: Record<string, unknown> = { ran: false };
  if (old) {
    // The upgrade drill: the old worker delivers on the old schema, the newest migrations are
    // applied under it, new workers start, then the old one stops.
    const window = ledger.openFault('upgrade-drill', 0);
    oldWorker = await startOldWorker(old, w.env, w.logDir, await freePort());
    log(`upgrade drill: the old worker (${old.commit.slice(0, 12)}) delivers on the old schema`);
    await sleep(short ? 8_000 : 60_000);
    const migrated = await runJson<{ applied: string[] }>('offerdesk migrate', 'bin/offerdesk.js', ['migrate', '--json'], env(), true);
    log(`upgrade drill: newest migrations applied under the old worker: ${JSON.stringify(migrated)}`);
    await sleep(short ? 3_000 : 30_000);
    await w.startApi();
    await w.startWorker('steady');
    await w.startWorker('victim');
    await sleep(short ? 3_000 : 30_000);
    const code = await oldWorker.stop();
    window.endedAt = Date.now();
    Object.assign(drill, { ran: true, oldCommit: old.commit, newestMigration: old.newestMigration, appliedUnderOldWorker: migrated.applied, oldWorkerExit: code });
    log(`upgrade drill: new workers running, the old worker stopped (exit ${code})`);
  } else {
    await w.startApi();
    await w.startWorker('steady');
    await w.startWorker('victim');
  }
  log(`serve at ${w.api!.origin}; traffic for ${options.minutes} min`);

  const reads = startReads({ world: w, ledger, workspaces, offers, perSecond: 10 });
  const consoleTraffic = startConsole({ world: w, ledger, workspaces, everyMs: short ? 5_000 : 15_000, log });
  schedule = scheduleFaults({ world: w, ledger, log, short }, Math.max(30_000, trafficEnds - Date.now()));

  // Memory of serve and the steady worker, per process (a restart starts a new series).
  const memory = new Map<string, { role: string; startedAt: number; samples: MemorySample[] }>();
  const sampleMemory = async () => {
    const targets = [
      ...(w.api ? [{ role: 'serve', child: w.api.child, metricsPort: w.api.metricsPort }] : []),
      ...[...w.workers.entries()].filter(([role]) => role === 'steady').map(([, x]) => ({ role: 'worker', child: x.child, metricsPort: x.metricsPort })),
    ];
    for (const t of targets) {
      let series = memory.get(t.child.name);
      if (!series) memory.set(t.child.name, (series = { role: t.role, startedAt: Date.now(), samples: [] }));
      series.samples.push({ ageMs: Date.now() - series.startedAt, rssMb: rssMb(t.child.pid), heapMb: await heapMb(t.metricsPort) });
    }
  };
  const memoryTimer = setInterval(() => void sampleMemory(), short ? 10_000 : 30_000);

  const mailsArrived = () => [...ledger.mailsArrived.values()].reduce((a, b) => a + b, 0);
  const progress = () => {
    const t = ledger.webhookTally();
    const elapsed = Math.round((Date.now() - trafficStarted) / 1000);
    log(
      `${Math.floor(elapsed / 60)}:${String(elapsed % 60).padStart(2, '0')} elapsed: ${ledger.eventsCommitted} events sent, ` +
        `${t.arrived}/${t.owed} deliveries arrived, ${mailsArrived()} mails, ${reads.reads()} reads, ` +
        `faults ${schedule!.done.length}/${Object.values(schedule!.planned).reduce((a, b) => a + b, 0)} done`,
    );
  };
  const progressTimer = setInterval(progress, short ? 30_000 : 60_000);

  await sleep(Math.max(0, trafficEnds - Date.now()));
  log('traffic ends; waiting for the faults still running');
  await schedule.finished;
  consoleTraffic.stop();
  await reads.stop();
  await offers.stop();
  const collectorBack = w.otlp.spans.length;

  // Drain: everything owed arrives, nothing is left open.
  const drainStarted = Date.now();
  let open = await openWork(w.sql);
  for (;;) {
    const t = ledger.webhookTally();
    const m = ledger.mailTally();
    if (t.missing === 0 && m.lost === 0 && consoleTraffic.busy() === 0 && open.queue + open.outbox + open.mail === 0) break;
    if (Date.now() - drainStarted > DRAIN_LIMIT_MS) break;
    await sleep(2_000);
    open = await openWork(w.sql).catch(() => open);
    if ((Date.now() - drainStarted) % 30_000 < 2_000) log(`draining: ${t.missing} deliveries and ${m.lost} mails to come, open ${JSON.stringify(open)}, ${consoleTraffic.busy()} console flows`);
  }
  await sleep(2_000);
  open = await openWork(w.sql);
  const drainSeconds = Math.round((Date.now() - drainStarted) / 1000);
  await sampleMemory();
  clearInterval(memoryTimer);
  clearInterval(progressTimer);
  progress();
  await consoleTraffic.close();
  await sleep(1_000);

  // The checks.
  const rows: CheckRow[] = [];
  const row = (name: string, figure: string | number, bound: string, pass: boolean) => rows.push({ name, figure: String(figure), bound, pass });
  const t = ledger.webhookTally();
  row('webhooks owed that arrived', `${t.arrived}/${t.owed}`, 'all', t.missing === 0 && t.owed > 0);
  row('webhooks with a bad signature', ledger.badSignatures, '0', ledger.badSignatures === 0);
  row('webhooks without webhook-id', ledger.missingWebhookIds, '0', ledger.missingWebhookIds === 0);
  row('events delivered under two webhook-ids', ledger.eventsWithSeveralIds(), '0', ledger.eventsWithSeveralIds() === 0);
  const dupBound = ledger.inFlightAtKills.reduce((a, b) => a + b, 0);
  row('duplicate deliveries (at-least-once)', t.duplicates, `<= ${dupBound} in flight at ${ledger.inFlightAtKills.length} kills`, t.duplicates <= dupBound);
  const m = ledger.mailTally();
  row('mails owed that arrived', `${m.arrived}/${m.owed}`, 'all', m.lost === 0 && m.owed > 0);
  row('mails that arrived twice', m.twice, '0', m.twice === 0);
  const failures = ledger.failures();
  row('API 5xx not explained by a fault', failures.api.unexplained, `0 (${failures.api.explained} in fault windows)`, failures.api.unexplained === 0);
  row('console 5xx not explained by a fault', failures.console.unexplained, `0 (${failures.console.explained} in fault windows)`, failures.console.unexplained === 0);
  const apiOk = ledger.statusCounts.api['200'] ?? 0;
  row('API reads answered 200', apiOk, '> 0', apiOk > 0);
  for (const role of ['serve', 'worker']) {
    const series = [...memory.values()].filter((s) => s.role === role);
    const rss = series.map((s) => growthMbPerMinute(s.samples, (x) => x.rssMb, 'peak', MEMORY_WARMUP_MS, MEMORY_WINDOW_MS)).filter((g) => g !== null);
    const heap = series.map((s) => growthMbPerMinute(s.samples, (x) => x.heapMb, 'floor', MEMORY_WARMUP_MS, MEMORY_WINDOW_MS)).filter((g) => g !== null);
    const judge = (name: string, growths: typeof rss, bound: number) => {
      if (growths.length === 0) {
        const must = options.minutes >= MEMORY_JUDGED_FROM_MINUTES;
        row(name, 'not measured', `<= ${bound} MB/min (a process living ${MEMORY_JUDGED_LIFE_MINUTES} min)`, !must);
        return;
      }
      const worst = growths.reduce((a, b) => (b.growth > a.growth ? b : a));
      row(name, `${worst.growth.toFixed(3)} MB/min (${worst.first.toFixed(1)} to ${worst.last.toFixed(1)} MB over ${worst.spanMinutes.toFixed(0)} min)`, `<= ${bound} MB/min`, worst.growth <= bound);
    };
    judge(`${role} RSS peak growth after 10 min`, rss, RSS_GROWTH_BOUND);
    judge(`${role} heap floor growth after 10 min`, heap, HEAP_GROWTH_BOUND);
  }
  row('queue, outbox and mail outbox drained', `${open.queue}/${open.outbox}/${open.mail}`, '0/0/0', open.queue + open.outbox + open.mail === 0);
  const spansAfter = w.otlp.spans.length - collectorBack;
  row('trace spans at the collector', `${w.otlp.spans.length} (${spansAfter} in the drain)`, '> 0', w.otlp.spans.length > 0);
  const plannedTotal = Object.values(schedule.planned).reduce((a, b) => a + b, 0);
  row('faults done as scheduled', `${schedule.done.length}/${plannedTotal}`, 'all', schedule.done.length === plannedTotal && schedule.failed.length === 0);
  const applied = (drill.appliedUnderOldWorker as string[] | undefined) ?? [];
  row(
    'upgrade drill: migrations applied under the old worker',
    drill.ran ? `${applied.join(', ') || 'none'}; old worker exit ${String(drill.oldWorkerExit)}` : 'skipped (--no-upgrade-drill)',
    drill.ran ? `${String(drill.newestMigration).replace(/\.sql$/, '')} applied, exit 0` : '-',
    !drill.ran || (applied.length > 0 && drill.oldWorkerExit === 0),
  );
  // Pausing takes 5 deliveries failed finally, each after 8 attempts over about 23.6 hours.
  row('gone endpoints paused', `no (${ledger.goneAttempts} attempts got 410)`, 'not reachable: needs ~24 h of retries', true);
  row('product actions that failed', ledger.actionsFailed, 'reported (database faults)', true);

  const table = formatTable(rows);
  process.stdout.write(`\n#### Offerdesk soak, ${options.minutes} min of traffic, drain ${drainSeconds} s, ${cpus().length} CPUs, Node ${process.version}\n${table}\n\n`);
  for (const fault of schedule.done) process.stdout.write(`- ${fault.startedAt.slice(11, 19)} ${fault.name} (${fault.seconds} s): ${fault.outcome}\n`);
  for (const failure of schedule.failed) process.stdout.write(`- FAILED ${failure}\n`);

  mkdirSync(join(REPO_DIR, 'bench'), { recursive: true });
  const report = {
    kind: short ? 'smoke' : 'full',
    minutes: options.minutes,
    finishedAt: new Date().toISOString(),
    totalSeconds: Math.round((Date.now() - started) / 1000),
    drainSeconds,
    machine: { cpus: cpus().length, node: process.version },
    checks: rows,
    webhooks: { ...t, requests: ledger.requests, delivered: ledger.delivered, unowedArrivals: ledger.unowedArrivals, goneAttempts: ledger.goneAttempts, inFlightAtKills: ledger.inFlightAtKills },
    mails: { ...m, notOwedKinds: ledger.otherMails },
    answers: ledger.statusCounts,
    failuresByFault: failures.byFault,
    unexplained5xx: failures.unexplainedSample,
    events: ledger.eventsCommitted,
    actionsFailed: ledger.actionsFailed,
    faults: schedule.done,
    faultsFailed: schedule.failed,
    upgradeDrill: drill,
    memory: Object.fromEntries([...memory.entries()].map(([name, s]) => [name, { role: s.role, samples: s.samples.map((x) => [Math.round(x.ageMs / 1000), x.rssMb && Math.round(x.rssMb * 10) / 10, x.heapMb && Math.round(x.heapMb * 10) / 10]) }])),
  };
  // Only an hour's run replaces the committed figures (docs/reliability.md "Last run").
  const reportFile = options.minutes >= 60 ? 'bench/soak.json' : 'bench/soak.tmp.json';
  writeFileSync(join(REPO_DIR, reportFile), `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${reportFile}`);
  if (rows.some((r) => !r.pass)) exitCode = 1;
} catch (error) {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  exitCode = 1;
} finally {
  schedule?.cancel();
  await stopVacuumStandIn?.();
  await oldWorker?.stop();
  await world?.close();
  await stopAllChildren();
  old?.cleanup();
  if (options.keep) log(`working directory kept: ${workDir}`);
  else rmSync(workDir, { recursive: true, force: true });
}
process.exit(exitCode);
