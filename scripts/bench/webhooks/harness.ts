import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from '../../../src/db/connect.js';
import { freePort, sleep, startNode, waitUntil } from '../processes.js';

/** The webhook benchmark's moving parts: the receiver process, worker processes, waiting. */

export const STALL_TIMEOUT_MS = 60_000;
export const POLL_MS = 200;
/** SPEC.md's 60 starts a minute per workspace, lifted for the bench's workers. */
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
  const summary = () => get<{ requests: number; distinct: number; duplicates: number }>('/summary');
  return { port, receiver: { proc, summary, reset: () => get('/reset', 'POST'), arrivals: () => get<[string, string, number, number][]>('/arrivals') } };
}

/** `count` worker processes, ready; stop() ends them and sums the statements and transactions they counted. */
export async function startWorkers(count: number, env: Record<string, string>, workDir: string): Promise<{ stop(): Promise<{ statements: number; transactions: number }> }> {
  const procs = Array.from({ length: count }, (_, i) =>
    startNode(`worker-${i + 1}`, 'webhooks/worker-process.ts', {
      env,
      pipeStdout: true,
      logFile: join(workDir, `worker-${i + 1}.log`),
      // BENCH_WORKER_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it stops.
      nodeArgs: process.env.BENCH_WORKER_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_WORKER_CPU_PROF] : [],
    }),
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
 * Waits until every event is out of the outbox and every delivery has had its first attempt.
 *
 * The database is asked only while no new first attempt arrives (and once per progress line):
 * counting the open deliveries reads the delivery table, about 30 ms of three PostgreSQL processes
 * at 200,000 rows, and asked every poll it took about a quarter of a core from the phase it was
 * timing (the worker's throughput run: 150 µs of PostgreSQL CPU per delivery outside the worker's
 * own backends). While first attempts keep arriving the phase is plainly not done.
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
  let lastProgress = Date.now();
  let lastLog = Date.now();
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
