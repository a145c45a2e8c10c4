import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { LoadResult, LoadSpec } from './load.js';
import { cpuMs, freePort, REPO_DIR, runJson, startNode, stopAllChildren, waitForHealth, type NodeProcess } from './processes.js';
import { loadConfig } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { BASELINE, compareWithBench } from './stack-floor/compare.js';
import { API_KEY, BODY, OFFER, OFFER_PATH } from './stack-floor/fixture.js';
import { perRequest, SAMPLING_INTERVAL_US, type Profile } from './stack-floor/profile.js';
import { RUNGS, type Rung } from './stack-floor/rungs.js';

/**
 * What the HTTP stack alone costs per request: one fixed answer (the one-offer response, no
 * database) served by a ladder of servers, each in its own process under the read bench's load
 * (autocannon in a process of its own, keep-alive connections, a warm-up first), measured as the
 * server process's CPU time per request:
 *   bare     node:http                      openapi  + openapi-backend by operationId, validating
 *   express  + express, the same handler    service  the service's own app on a canned pool
 * Like the read bench's service, every rung runs built, by plain node (compiled first into
 * dist/stack-floor/); a rung named with `:source` runs from source through the TypeScript loader
 * instead, which turns on source maps for every stack trace. Rungs interleave, each measured
 * `--repeats` times; the median counts. The increments are then set against the read bench's
 * baseline CPU per request (bench/results.json, and with --baseline the baseline server measured
 * in the same rounds): the service may spend at most 2x the baseline, so a stack increment larger
 * than the baseline's whole cost puts that target out of reach whatever the rest costs.
 * --profile then profiles each rung under the same load (stack-floor/profile.ts).
 *
 *   node --import tsx scripts/bench/stack-floor.ts [--duration 5] [--warmup 2] [--repeats 3]
 *     [--connections 32] [--rungs bare,express,openapi,service] [--profile]
 *     [--baseline [--database offerdesk_bench]] [--results bench/results.json]
 */

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    repeats: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    rungs: { type: 'string', default: RUNGS.join(',') },
    profile: { type: 'boolean', default: false },
    results: { type: 'string', default: join(REPO_DIR, 'bench', 'results.json') },
    baseline: { type: 'boolean', default: false },
    database: { type: 'string', default: 'offerdesk_bench' },
  },
});
const durationSeconds = Number(args.duration);
const warmupSeconds = Number(args.warmup);
const repeats = Number(args.repeats);
const connections = Number(args.connections);
/** A rung as named on the command line: `openapi` runs built, `openapi:source` from source. */
interface Entry {
  name: string;
  rung: Rung;
  fromSource: boolean;
}
const entries: Entry[] = args.rungs.split(',').map((name) => {
  const [rung, variant] = name.split(':') as [Rung, string | undefined];
  if (!RUNGS.includes(rung) || (variant !== undefined && variant !== 'source')) {
    throw new Error(`unknown rung ${name} (${RUNGS.join(', ')}, each optionally with :source)`);
  }
  return { name, rung, fromSource: variant === 'source' };
});
const BUILT_DIR = 'dist/stack-floor';
const BUILT_SERVER = `${BUILT_DIR}/scripts/bench/stack-floor/server.js`;

const workDir = mkdtempSync(join(tmpdir(), 'offerdesk-stack-floor-'));
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const request = { path: OFFER_PATH, headers: { authorization: `Bearer ${API_KEY}` } };

interface Server {
  name: string;
  proc: NodeProcess;
  origin: string;
  profileFile: string | null;
  /** The bench's baseline answers with the same body but without the service's own headers. */
  bodyOnly?: boolean;
}

/**
 * With --baseline, the read bench's own baseline (scripts/bench/baseline-server.ts: node:http,
 * postgres.js, the same SQL) serves the same offer from the bench database in the same rotation,
 * so the ladder's increments meet the baseline's CPU per request measured under the same load on
 * the machine, not only the committed run's. It only reads.
 */
async function startBaseline(): Promise<Server> {
  const base = loadConfig().databaseUrl;
  if (!base) throw new Error('--baseline needs DATABASE_URL (the server of the bench database)');
  const url = new URL(base);
  url.pathname = `/${args.database}`;
  const sql = connect(url.toString(), { max: 1, applicationName: 'offerdesk-bench-stack-floor' });
  const [row] = await sql<{ workspace_id: string }[]>`select workspace_id from offers where id = ${OFFER.id}::uuid`;
  await sql.end();
  // The fixture's id is from the seed it was taken from; a database seeded again has new ids.
  if (!row) throw new Error(`${args.database} has no offer ${OFFER.id} (seeded again since the fixture was taken?): run without --baseline, or update stack-floor/fixture.ts`);
  const port = await freePort();
  const proc = startNode(BASELINE, 'baseline-server.ts', {
    env: { DATABASE_URL: url.toString(), PORT: String(port), HOST: '127.0.0.1', BENCH_WORKSPACE_ID: row.workspace_id },
    logFile: join(workDir, 'baseline.log'),
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitForHealth(proc, origin);
  return { name: BASELINE, proc, origin, profileFile: null, bodyOnly: true };
}

/**
 * The ladder's server and the project code it imports, compiled as `npm run build` compiles src/
 * (tsconfig.json's settings), so built rungs run what ships.
 */
function buildLadder(): void {
  const tsc = join(REPO_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
  const settings = ['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--lib', 'ES2023', '--types', 'node'];
  const flags = ['--strict', '--esModuleInterop', '--skipLibCheck', '--resolveJsonModule'];
  const result = spawnSync(
    process.execPath,
    [tsc, '--outDir', BUILT_DIR, '--rootDir', '.', ...settings, ...flags, 'scripts/bench/stack-floor/server.ts'],
    { cwd: REPO_DIR, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error(`compiling the ladder failed (exit ${result.status})`);
}

async function startRung(entry: Entry, profile: boolean): Promise<Server> {
  const port = await freePort();
  const file = entry.name.replace(':', '-');
  const profileFile = profile ? join(workDir, `${file}.cpuprofile`) : null;
  const proc = startNode(entry.name, entry.fromSource ? 'stack-floor/server.ts' : BUILT_SERVER, {
    built: !entry.fromSource,
    args: [entry.rung, String(port)],
    env: profileFile ? { STACK_FLOOR_PROFILE: profileFile } : {},
    logFile: join(workDir, `${file}.log`),
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitForHealth(proc, origin);
  return { name: entry.name, proc, origin, profileFile };
}

async function load(origin: string, seconds: number): Promise<LoadResult> {
  const spec: LoadSpec = { origin, connections, durationSeconds: seconds, requests: [request] };
  const file = join(workDir, 'load-spec.json');
  writeFileSync(file, JSON.stringify(spec));
  return runJson<LoadResult>('load', 'load.ts', [file]);
}

/** Headers whose values differ per request or per connection. */
const VARYING = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset', 'keep-alive', 'connection']);

/** Every rung must give the service's answer: the same status, body and headers. */
async function checkSameAnswers(servers: Server[]): Promise<void> {
  let reference: { name: string; text: string } | undefined;
  for (const { name, origin, bodyOnly } of servers) {
    const res = await fetch(`${origin}${OFFER_PATH}`, { headers: request.headers });
    const body = await res.text();
    const headers = [...res.headers].map(([name, value]) => `${name}: ${VARYING.has(name) ? '*' : value}`).sort();
    const text = `${res.status}\n${headers.join('\n')}\n${body}`;
    if (res.status !== 200 || body !== BODY) throw new Error(`${name} answers ${res.status} ${body.slice(0, 200)}`);
    if (bodyOnly) continue;
    if (!reference) reference = { name, text };
    else if (text !== reference.text) throw new Error(`${name} answers unlike ${reference.name}:\n${text}\n---\n${reference.text}`);
  }
  log(`every rung answers ${OFFER_PATH} alike: ${reference?.text.split('\n').slice(0, -1).join(' | ')}`);
}

interface Sample {
  cpuUsPerRequest: number;
  /** The kernel's part of it (system time): socket reads and writes, epoll, wake-ups. */
  sysUsPerRequest: number;
  requestsPerSecond: number;
}

/** System CPU time of a process so far, in ms (/proc/<pid>/stat's stime, USER_HZ 100). */
function sysMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[12]) * 10;
}

async function measure(server: Server): Promise<Sample> {
  if (warmupSeconds > 0) await load(server.origin, warmupSeconds);
  const [before, sysBefore] = [cpuMs(server.proc.pid), sysMs(server.proc.pid)];
  const result = await load(server.origin, durationSeconds);
  const [after, sysAfter] = [cpuMs(server.proc.pid), sysMs(server.proc.pid)];
  if (before === null || after === null) throw new Error(`no CPU time for ${server.name}`);
  const odd = Object.keys(result.statuses).filter((code) => code !== '200');
  if (odd.length || result.errors) throw new Error(`${server.name}: statuses ${JSON.stringify(result.statuses)}, errors ${result.errors}`);
  return {
    cpuUsPerRequest: ((after - before) * 1000) / result.requests,
    sysUsPerRequest: ((sysAfter - sysBefore) * 1000) / result.requests,
    requestsPerSecond: result.requestsPerSecond,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function ladder(): Promise<Map<string, number>> {
  const servers: Server[] = [];
  for (const entry of entries) servers.push(await startRung(entry, false));
  if (args.baseline) servers.push(await startBaseline());
  try {
    await checkSameAnswers(servers);
    const samples = new Map<string, Sample[]>(servers.map((s) => [s.name, []]));
    for (let round = 0; round < repeats; round++) {
      // Interleaved, and each round starts one rung later, so a drift in load favours none.
      for (let i = 0; i < servers.length; i++) {
        const server = servers[(i + round) % servers.length]!;
        const sample = await measure(server);
        samples.get(server.name)!.push(sample);
        log(
          `round ${round + 1} ${server.name.padEnd(14)} ${sample.cpuUsPerRequest.toFixed(1).padStart(6)} µs CPU/request ` +
            `(${sample.sysUsPerRequest.toFixed(1)} system) ` +
            `${sample.requestsPerSecond.toFixed(0).padStart(6)} req/s`,
        );
      }
    }
    log('\nrung            CPU µs/request (median; all)       over bare   over previous   req/s (median)   system µs (median)');
    const medians = new Map<string, number>();
    let previous: number | undefined;
    for (const { name } of servers) {
      const all = samples.get(name)!;
      const cpu = median(all.map((s) => s.cpuUsPerRequest));
      medians.set(name, cpu);
      const bare = medians.get('bare');
      log(
        `${name.padEnd(14)} ${cpu.toFixed(1).padStart(8)} (${all.map((s) => s.cpuUsPerRequest.toFixed(1)).join(', ')})`.padEnd(50) +
          `${bare === undefined ? '' : `+${(cpu - bare).toFixed(1)}`.padStart(9)}` +
          `${previous === undefined ? '' : `+${(cpu - previous).toFixed(1)}`.padStart(16)}` +
          `${median(all.map((s) => s.requestsPerSecond)).toFixed(0).padStart(17)}` +
          `${median(all.map((s) => s.sysUsPerRequest)).toFixed(1).padStart(21)}`,
      );
      previous = cpu;
    }
    return medians;
  } finally {
    await Promise.all(servers.map((s) => s.proc.stop()));
  }
}

/** The same load on each rung with a profiler on, self time per request by where it runs. */
async function profileRungs(): Promise<void> {
  const columns = new Map<string, Map<string, number>>();
  for (const entry of entries) {
    const server = await startRung(entry, true);
    try {
      await load(server.origin, warmupSeconds || 1);
      process.kill(server.proc.pid, 'SIGUSR2');
      const result = await load(server.origin, durationSeconds);
      process.kill(server.proc.pid, 'SIGUSR2');
      const deadline = Date.now() + 30_000;
      while (!existsSync(server.profileFile!) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const profile = JSON.parse(readFileSync(server.profileFile!, 'utf8')) as Profile;
      columns.set(entry.name, perRequest(profile, result.requests));
    } finally {
      await server.proc.stop();
    }
  }
  const keys = new Map<string, number>();
  for (const col of columns.values()) for (const [k, v] of col) keys.set(k, Math.max(keys.get(k) ?? 0, v));
  const rows = [...keys].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  const total = (col: Map<string, number>) => [...col.values()].reduce((a, b) => a + b, 0);
  log(`\nprofiled (sampled every ${SAMPLING_INTERVAL_US} µs, self time per request in µs, profiler overhead included):`);
  const names = entries.map((e) => e.name);
  log(`${'where'.padEnd(44)}${names.map((n) => n.padStart(16)).join('')}`);
  log(`${'total busy'.padEnd(44)}${names.map((n) => total(columns.get(n)!).toFixed(1).padStart(16)).join('')}`);
  for (const key of rows.slice(0, 30)) {
    log(`${key.slice(0, 43).padEnd(44)}${names.map((n) => (columns.get(n)!.get(key) ?? 0).toFixed(1).padStart(16)).join('')}`);
  }
}

try {
  if (entries.some((e) => !e.fromSource)) buildLadder();
  log(`stack floor: ${entries.map((e) => e.name).join(', ')}; ${connections} connections, ${warmupSeconds} s warm-up + ${durationSeconds} s each, ${repeats} rounds`);
  const medians = await ladder();
  compareWithBench({
    medians,
    steps: entries.filter((e) => e.rung === 'openapi' || e.rung === 'service').map((e) => e.name),
    resultsFile: args.results,
    log,
  });
  if (args.profile) await profileRungs();
} finally {
  await stopAllChildren();
  rmSync(workDir, { recursive: true, force: true });
}
