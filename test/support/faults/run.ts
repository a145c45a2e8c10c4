import { committedEvents, openDeliveries, startEvents } from './load.js';
import { FAULTS, type Fault } from './faults.js';
import { phaseWorkspace, type World } from './world.js';

/** One row of the table: what one fault did to the service under steady load. */
export interface FaultRow {
  fault: string;
  what: string;
  /** Reads from the fault's start until recovery. */
  requests: number;
  non2xx: number;
  /** Non-2xx answers without the contract's error body (internals would show here). */
  foreignBodies: number;
  slowestMs: number;
  statuses: Record<string, number>;
  /** offer.sent events committed in the phase's workspace (from the database). */
  committed: number;
  /** Distinct webhook-ids the receiver got for them. */
  delivered: number;
  duplicates: number;
  /** From the fault's end until /readyz is all ok, every event arrived and no delivery is open. */
  recoverSeconds: number | null;
  notes: string[];
  /** Every bound of the fault held. */
  held: boolean;
  problems: string[];
}

/** Load before the fault, so it strikes a running system. */
const WARM_MS = 1_500;
/** Longest the suite waits for recovery after a fault before calling the row failed. */
const RECOVERY_LIMIT_MS = 45_000;
/** What the row accepts as recovery time (a killed worker's lease is 12 s). */
const RECOVERY_BOUND_S = 30;
const PROBE_TIMEOUT_MS = 2_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answersOk(world: World): Promise<boolean> {
  try {
    const ready = await fetch(`${world.api.origin}/readyz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await ready.json()) as { status?: string };
    return ready.status === 200 && body.status === 'ready';
  } catch {
    return false;
  }
}

function arrivals(world: World, path: string): { distinct: number; duplicates: number } {
  const ids = new Map<string, number>();
  for (const request of world.receiver.requests) {
    if (request.path !== path) continue;
    const id = request.headers['webhook-id'] ?? '';
    ids.set(id, (ids.get(id) ?? 0) + 1);
  }
  let duplicates = 0;
  for (const count of ids.values()) duplicates += count - 1;
  return { distinct: ids.size, duplicates };
}

export async function runFault(world: World, fault: Fault, log: (line: string) => void, baselineSlowestMs = 0): Promise<FaultRow> {
  const notes: string[] = [];
  const problems: string[] = [];
  const phase = await phaseWorkspace(world, fault.name);
  const events = startEvents(world.sql, phase.workspaceId);
  await sleep(WARM_MS);

  log(`fault ${fault.name}: ${fault.what}`);
  world.reads.openWindow();
  try {
    await fault.inject(world, (line) => notes.push(line));
  } catch (error) {
    problems.push(`the fault itself failed: ${(error as Error).message}`);
  }
  const endedAt = performance.now();
  // The backlog is fixed from here: recovery includes delivering all of it.
  await events.stop();

  let recoverSeconds: number | null = null;
  let committed = 0;
  const deadline = endedAt + RECOVERY_LIMIT_MS;
  while (performance.now() < deadline) {
    if (await answersOk(world)) {
      committed = await committedEvents(world.sql, phase.workspaceId).catch(() => -1);
      // Settled: every event arrived, and no delivery is still queued or held by a lease (a
      // killed worker's attempt is retried after its lease: the duplicate shows in the row).
      const open = await openDeliveries(world.sql, phase.workspaceId).catch(() => -1);
      if (committed >= 0 && open === 0 && arrivals(world, phase.path).distinct >= committed) {
        recoverSeconds = (performance.now() - endedAt) / 1000;
        break;
      }
    }
    await sleep(100);
  }
  // A copy: the read loops go on counting into the live window.
  const window = { ...world.reads.window() };
  if (committed <= 0) committed = await committedEvents(world.sql, phase.workspaceId).catch(() => 0);
  const { distinct, duplicates } = arrivals(world, phase.path);

  if (distinct < committed) problems.push(`${committed - distinct} committed events never delivered`);
  if (!fault.non2xxAllowed && window.non2xx > 0) problems.push(`${window.non2xx} non-2xx answers`);
  if (window.foreignBodies > 0) problems.push(`${window.foreignBodies} error answers without the contract's error body`);
  const slowestAllowed = fault.slowestBoundMs + baselineSlowestMs;
  if (window.slowestMs > slowestAllowed) {
    problems.push(`slowest answer ${Math.round(window.slowestMs)} ms > ${Math.round(slowestAllowed)} ms (bound plus baseline)`);
  }
  if (recoverSeconds === null) problems.push(`not recovered within ${RECOVERY_LIMIT_MS / 1000} s`);
  else if (recoverSeconds > RECOVERY_BOUND_S) problems.push(`recovery took ${recoverSeconds.toFixed(1)} s > ${RECOVERY_BOUND_S} s`);
  if (events.failedCommits() > 0) notes.push(`${events.failedCommits()} product actions failed while the database was away (not committed)`);

  return {
    fault: fault.name,
    what: fault.what,
    requests: window.requests,
    non2xx: window.non2xx,
    foreignBodies: window.foreignBodies,
    slowestMs: Math.round(window.slowestMs),
    statuses: { ...window.statuses },
    committed,
    delivered: distinct,
    duplicates,
    recoverSeconds: recoverSeconds === null ? null : Math.round(recoverSeconds * 10) / 10,
    notes,
    held: problems.length === 0,
    problems,
  };
}

/** The faults to run: all, or those named; the PostgreSQL ones only with the suite's own server. */
export function selectFaults(names: string[] | undefined, ownPostgres: boolean): { run: Fault[]; skipped: string[] } {
  const unknown = (names ?? []).filter((name) => !FAULTS.some((fault) => fault.name === name));
  if (unknown.length > 0) throw new Error(`unknown fault ${unknown.join(', ')}; known: ${FAULTS.map((f) => f.name).join(', ')}`);
  // The baseline always runs first: the other rows are judged against it.
  const chosen = names ? FAULTS.filter((fault) => fault.name === 'baseline' || names.includes(fault.name)) : FAULTS;
  const run = chosen.filter((fault) => ownPostgres || !fault.needsOwnPostgres);
  return { run, skipped: chosen.filter((fault) => !run.includes(fault)).map((fault) => fault.name) };
}

export function formatTable(rows: FaultRow[]): string {
  const lines = [
    '| Fault | Requests during | Non-2xx | Slowest answer | Events committed | Webhook-ids delivered | Duplicates | Seconds to recover | Held |',
    '| - | -: | -: | -: | -: | -: | -: | -: | - |',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.fault} | ${row.requests} | ${row.non2xx} | ${row.slowestMs} ms | ${row.committed} | ${row.delivered} | ${row.duplicates} | ${
        row.recoverSeconds ?? 'none'
      } | ${row.held ? 'yes' : `NO: ${row.problems.join('; ')}`} |`,
    );
  }
  return lines.join('\n');
}
