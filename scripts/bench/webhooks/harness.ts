import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { OFFER_WEBHOOK_TYPES } from '../../../src/domain/outbox.js';
import { createLogger } from '../../../src/log.js';
import { loadMasterKeys } from '../../../src/sealing/master-keys.js';
import { addEndpoint, type ManagementDeps } from '../../../src/webhooks/management/endpoints.js';
import { testCertificates } from '../../../test/support/https-receiver.js';
import { autovacuumWebhookTables } from '../autoanalyze.js';
import { ORCHESTRATOR_POOL, type BenchDatabase } from '../database.js';
import { largest, percentile } from '../numbers.js';
import type { BenchOptions } from '../options.js';
import { startPgCostMeter } from '../pg-cost.js';
import { benchEnv, freePort, sleep, startNode, waitUntil } from '../processes.js';
import { clearDeliveries, clearEndpoints, commitEvents, ensureWebhookWorkspaces, seedOpenDeliveries } from './setup.js';

/** What the webhook phases share: receiver, workers, waiting, one database's bench, a measured run and a backlog run. */

export const STALL_TIMEOUT_MS = 60_000;
export const POLL_MS = 200;
/** The 60 starts a minute per workspace of docs/webhook-delivery.md "Limits", lifted for the bench's workers. */
export const LIFTED_STARTS_PER_MINUTE = 1_000_000_000;
const PROGRESS_LOG_MS = 15_000;

type Receiver = Awaited<ReturnType<typeof startReceiver>>['receiver'];

/** The receiver process and its control port; arrivals are [path + ' ' + webhook-id, path, wall-clock ms, count]. */
export async function startReceiver(workDir: string, certs: { certPem: string; keyPem: string }) {
  const [port, controlPort] = [await freePort(), await freePort()];
  const [certFile, keyFile] = [join(workDir, 'receiver-cert.pem'), join(workDir, 'receiver-key.pem')];
  writeFileSync(certFile, certs.certPem);
  writeFileSync(keyFile, certs.keyPem, { mode: 0o600 });
  const proc = startNode('receiver', 'webhooks/receiver.ts', {
    env: { RECEIVER_CERT: certFile, RECEIVER_KEY: keyFile, RECEIVER_PORT: String(port), RECEIVER_CONTROL_PORT: String(controlPort) },
    logFile: join(workDir, 'receiver.log'),
  });
  const control = `http://127.0.0.1:${controlPort}`;
  const get = async <T>(path: string, method = 'GET'): Promise<T> => (await (await fetch(`${control}${path}`, { method })).json()) as T;
  await waitUntil('the webhook receiver did not start', () => get('/summary').then(() => true, () => false));
  const summary = (prefix = '') => get<{ requests: number; distinct: number; duplicates: number; paths: number }>(`/summary?prefix=${encodeURIComponent(prefix)}`);
  return { port, receiver: { proc, summary, reset: () => get('/reset', 'POST'), arrivals: () => get<[string, string, number, number][]>('/arrivals') } };
}

/** `count` worker processes, ready; stop() ends them and sums the statements and transactions they counted. */
export async function startWorkers(count: number, env: Record<string, string>, workDir: string): Promise<{ stop(): Promise<{ statements: number; transactions: number }> }> {
  const procs = Array.from({ length: count }, (_, i) =>
    startNode(`worker-${i + 1}`, 'webhooks/worker-process.ts', { env, pipeStdout: true, logFile: join(workDir, `worker-${i + 1}.log`) }),
  );
  await waitUntil('webhook workers did not start', async () => procs.every((proc) => proc.output().includes('"ready":true')));
  return {
    async stop() {
      await Promise.all(procs.map((proc) => proc.stop()));
      const counts = procs.map((proc) => proc.output().split('\n').find((l) => l.includes('"statements"'))).map((line) => (line ? JSON.parse(line) : { statements: 0, transactions: 0 }));
      return counts.reduce((sum, c) => ({ statements: sum.statements + c.statements, transactions: sum.transactions + c.transactions }), { statements: 0, transactions: 0 });
    },
  };
}

/** Waits until `count` distinct first attempts arrived, or until `deadline` (Date.now() ms) passes. */
export async function waitForArrivals(receiver: Receiver, count: number, deadline = Infinity): Promise<void> {
  for (let last = { distinct: 0, at: Date.now() }; Date.now() < deadline; ) {
    await sleep(POLL_MS);
    const { distinct } = await receiver.summary();
    if (distinct >= count) return;
    if (distinct !== last.distinct) last = { distinct, at: Date.now() };
    else if (Date.now() - last.at > STALL_TIMEOUT_MS) throw new Error(`delivery stalled at ${distinct} of ${count} first attempts`);
  }
}

/**
 * Waits until every event is out of the outbox and every delivery has had its first attempt. The
 * database is asked only while no first attempt arrives (and per progress line): counting open
 * deliveries every poll would take a quarter of a core from the run it times.
 */
export async function waitForFirstAttempts(sql: Sql, receiver: Receiver, log: (line: string) => void, workspaceIds?: string[]): Promise<void> {
  const countOpen = async () => {
    const scope = workspaceIds ? sql`workspace_id = any (${workspaceIds}::uuid[])` : sql`true`;
    const [row] = await sql<{ open: number }[]>`
      select (select count(*) from webhook_outbox where ${scope})
           + (select count(*) from webhook_deliveries where ${scope} and status in ('pending', 'sending') and attempt_count = 0) as open`;
    return Number(row!.open);
  };
  let last = { distinct: -1, requests: -1, open: -1 };
  let [lastProgress, lastLog] = [Date.now(), Date.now()];
  for (;;) {
    await sleep(POLL_MS);
    const { requests, distinct } = await receiver.summary();
    const logDue = Date.now() - lastLog > PROGRESS_LOG_MS;
    const open = distinct === last.distinct || logDue ? await countOpen() : last.open;
    if (open === 0) return;
    // Progress is an arrival or a fan-out step (events leaving the outbox become deliveries).
    if (distinct !== last.distinct || requests !== last.requests || open !== last.open) lastProgress = Date.now();
    else if (Date.now() - lastProgress > STALL_TIMEOUT_MS) throw new Error(`webhook delivery stalled: ${open} events or first attempts still open`);
    last = { distinct, requests, open };
    if (logDue) {
      lastLog = Date.now();
      log(`  ... ${requests} requests at the receiver, ${open} events in the outbox or first attempts open`);
    }
  }
}

export type WebhookOptions = BenchOptions['webhooks'] & { workDir: string; log: (line: string) => void };
/** One measured run; statements and transactions per attempt from the workers' postgres.js debug hook; pg: its PostgreSQL cost (pg-cost.ts). */
export type RunStats = Awaited<ReturnType<typeof measure>>;

/** What every phase uses; `workspaces` are the throughput runs' (the first `options.workspaces`), keepLogBefore the log bench's. */
export type Bench = Awaited<ReturnType<typeof startWebhookBench>>;

export type Events = Parameters<typeof commitEvents>[1];
/** The event id of a receiver arrival key (path + ' ' + webhook-id). */
export const eventOf = (key: string) => key.slice(key.indexOf(' ') + 1);

export async function startWebhookBench(db: BenchDatabase, options: WebhookOptions) {
  const setup = await ensureWebhookWorkspaces(db.sql, Math.max(options.workspaces, options.fairnessSmallWorkspaces + 1), options.log);
  const certs = await testCertificates();
  const { receiver, port } = await startReceiver(options.workDir, certs);
  const env = {
    ...benchEnv(db.url),
    OFFERDESK_WEBHOOK_DEV_RESOLVE: `hooks.test=127.0.0.1:${port}`,
    NODE_EXTRA_CA_CERTS: certs.caFile,
    WEBHOOK_STARTS_PER_MINUTE: String(LIFTED_STARTS_PER_MINUTE),
    WEBHOOK_WORKER_CONCURRENCY: String(options.concurrency),
  };
  const config = loadConfig({ ...process.env, ...env });
  const management: ManagementDeps = { sql: db.sql, clock: systemClock, config: config.webhooks, masterKey: loadMasterKeys(config, createLogger('warn')).current };
  return { sql: db.sql, receiver, env, setup, workspaces: setup.workspaces.slice(0, options.workspaces), management, options, log: options.log, keepLogBefore: null as Date | null };
}

/** An endpoint of the workspace at the receiver's `path`, subscribed to every offer event. */
export const addHook = async (b: Bench, ws: { id: string; ownerId: string }, path: string) =>
  (await addEndpoint(b.management, { workspaceId: ws.id, url: `https://hooks.test${path}`, events: [...OFFER_WEBHOOK_TYPES], actorId: ws.ownerId })).id;

/** Every workspace gets `endpointsPerWorkspace` endpoints. */
export async function addBenchEndpoints(b: Bench): Promise<void> {
  await clearEndpoints(b.sql);
  const started = performance.now();
  for (const [i, ws] of b.setup.workspaces.entries())
    for (let e = 1; e <= b.options.endpointsPerWorkspace; e++) await addHook(b, ws, `/ws/${i}/${e}`);
  b.log(`added ${b.setup.workspaces.length * b.options.endpointsPerWorkspace} endpoints in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

export function spread(b: Bench, total: number): Events {
  const n = b.workspaces.length;
  return b.workspaces.map((ws, i) => ({ workspaceId: ws.id, count: Math.floor(total / n) + (i < total % n ? 1 : 0) }));
}

/** When each event was committed, by event id: the start of its deliveries' end-to-end time. */
export type Committed = Map<string, number>;
export const allAt = ({ committedAt, ids }: { committedAt: number; ids: string[] }): Committed => new Map(ids.map((id) => [id, committedAt]));
export const commitAll = (b: Bench, events: Events) => async () => allAt(await commitEvents(b.sql, events));

/** One measured run: start `workers` workers, commit the events, wait until every first attempt arrived. */
export async function measure(b: Bench, label: string, workers: number, commit: () => Promise<Committed>) {
  const { sql, receiver } = b;
  await clearDeliveries(sql, b.keepLogBefore);
  await receiver.reset();
  const meter = await startPgCostMeter(sql, ORCHESTRATOR_POOL);
  const fleet = await startWorkers(workers, b.env, b.options.workDir);
  const committed = await commit();
  await waitForFirstAttempts(sql, receiver, b.log);
  // Before the workers' backends exit with the CPU they used.
  await meter.stopCpu();
  const counts = await fleet.stop();
  const { requests, duplicates } = await receiver.summary();
  const attempted = requests || 1;
  const arrivals = (await receiver.arrivals()).filter(([, path]) => !path.startsWith('/fail/'));
  const latencies = arrivals.map(([key, , at]) => at - committed.get(eventOf(key))!).sort((x, y) => x - y);
  const firstCommit = -largest([...committed.values()].map((at) => -at));
  const seconds = (largest(arrivals.map(([, , at]) => at)) - firstCommit) / 1000;
  const pg = await meter.result(arrivals.length);
  const stats = {
    ...{ events: committed.size, deliveries: arrivals.length, seconds, perSecond: arrivals.length / seconds, e2eP50Ms: percentile(latencies, 50), e2eP99Ms: percentile(latencies, 99) },
    ...{ duplicates, workers, statementsPerDelivery: counts.statements / attempted, transactionsPerDelivery: counts.transactions / attempted, pg },
  };
  const cpu = pg.pgCpuUsPerDelivery === null ? '-' : pg.pgCpuUsPerDelivery.toFixed(0);
  const dbWal = pg.databaseWalBytesPerDelivery === null ? 'its database\'s WAL unread' : `${pg.databaseWalBytesPerDelivery.toFixed(0)} WAL bytes (${pg.databaseWalFpiBytesPerDelivery!.toFixed(0)} of them full pages) in ${pg.databaseWalRecordsPerDelivery!.toFixed(1)} records`;
  const others = pg.otherDatabasesRowsWritten > 0 ? `, other databases wrote ${pg.otherDatabasesRowsWritten} rows meanwhile` : '';
  b.log(
    `${label.padEnd(22)} ${stats.deliveries} deliveries in ${seconds.toFixed(1)} s = ${stats.perSecond.toFixed(0)}/s, commit->receiver p50 ${stats.e2eP50Ms.toFixed(1)} ms ` +
      `p99 ${stats.e2eP99Ms.toFixed(1)} ms, duplicates ${stats.duplicates}, ${stats.statementsPerDelivery.toFixed(2)} statements and ${stats.transactionsPerDelivery.toFixed(3)} transactions/delivery\n` +
      `${''.padEnd(22)} PostgreSQL per delivery: ${cpu} µs CPU, ${dbWal}, ${pg.indexEntriesPerDelivery.toFixed(1)} index entries (the server's WAL ${pg.walBytesPerDelivery.toFixed(0)} bytes${others})`,
  );
  return stats;
}

/**
 * One worker against `perWorkspace` open deliveries to every endpoint of each workspace, timed over
 * the first `measured` first attempts (any endpoint's) from the first arrival (fewer if `deadline`,
 * in Date.now() ms, passes first); `meanwhile` runs once the worker has started.
 */
export async function backlogRun<T>(b: Bench, workspaceIds: string[], perWorkspace: number, measured: number, more: { deadline?: number; meanwhile?: () => Promise<T> } = {}) {
  const { sql, receiver } = b;
  await clearDeliveries(sql, b.keepLogBefore);
  await receiver.reset();
  const open = await seedOpenDeliveries(sql, workspaceIds, perWorkspace);
  // Written in one transaction, the backlog is unseen by autovacuum's ANALYZE: the claims would be planned for empty tables.
  await autovacuumWebhookTables(sql);
  const fleet = await startWorkers(1, b.env, b.options.workDir);
  const meanwhile = await more.meanwhile?.();
  await waitForArrivals(receiver, Math.min(open, measured), more.deadline);
  const times = (await receiver.arrivals()).map(([, , at]) => at).sort((x, y) => x - y);
  const { duplicates } = await receiver.summary();
  await fleet.stop();
  await clearDeliveries(sql, b.keepLogBefore);
  const counted = Math.min(times.length, measured);
  return { openDeliveries: open, measured: counted, perSecond: (counted - 1) / ((times[counted - 1]! - times[0]!) / 1000), duplicates, meanwhile };
}
