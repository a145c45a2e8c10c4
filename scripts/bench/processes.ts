import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Child processes of the benchmark: servers under test, the load generator, workers, receivers. */

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = join(BENCH_DIR, '..', '..');
const READY_TIMEOUT_MS = 60_000;
const POLL_MS = 50;
const STOP_TIMEOUT_MS = 15_000;

/** The bench database, a fresh master key (with DATABASE_URL the service makes none) and no Redis (in-memory limiter). */
export const benchEnv = (databaseUrl: string) => ({ DATABASE_URL: databaseUrl, OFFERDESK_MASTER_KEY: randomBytes(32).toString('base64'), REDIS_URL: '' });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `ready` until it holds; throws `${what}` once `timeoutMs` pass or `gaveUp` says so. */
export async function waitUntil(what: string, ready: () => Promise<boolean>, gaveUp = () => false, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await ready()); await sleep(POLL_MS)) {
    if (Date.now() > deadline || gaveUp()) throw new Error(what);
  }
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A child process; exited resolves with its exit code, stop() sends SIGTERM, then SIGKILL after a grace period. */
export type NodeProcess = ReturnType<typeof startNode>;

/** Every child still running, so an interrupted benchmark leaves none behind. */
const running = new Set<NodeProcess>();

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((proc) => proc.stop()));
}

export function startNode(
  name: string,
  script: string,
  // pipeStdout: stdout kept for output(); built: `script` is built JavaScript under the repository, run by plain node;
  // cpu: pinned to that CPU by taskset, which runs node in its own place (same pid).
  options: { args?: string[]; env?: Record<string, string>; nodeArgs?: string[]; logFile?: string; pipeStdout?: boolean; built?: boolean; cpu?: number },
) {
  if (options.built) buildIfStale();
  const logFd = options.logFile ? openSync(options.logFile, 'a') : undefined;
  const out = options.pipeStdout ? 'pipe' : (logFd ?? 'ignore');
  const entry = options.built ? [join(REPO_DIR, script)] : ['--import', 'tsx', join(BENCH_DIR, script)];
  const [command, ...args] = [...(options.cpu === undefined ? [] : ['taskset', '-c', String(options.cpu)]), process.execPath, ...(options.nodeArgs ?? []), ...entry, ...(options.args ?? [])];
  const child = spawn(command!, args, {
    cwd: REPO_DIR,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', out, logFd ?? 'inherit'],
  });
  if (logFd !== undefined) closeSync(logFd);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const proc = {
    name,
    pid: child.pid!,
    exited,
    ended: () => child.exitCode !== null || child.signalCode !== null,
    output: () => output,
    async stop(): Promise<number | null> {
      if (proc.ended()) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      return exited.finally(() => clearTimeout(timer));
    },
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return proc;
}

/** A server script on a free port (PORT), once GET /healthz answers 200; its log under `workDir`. */
export async function startServer(name: string, script: string, options: Parameters<typeof startNode>[2] & { env: Record<string, string>; workDir: string }) {
  const port = await freePort();
  const proc = startNode(name, script, { ...options, env: { ...options.env, PORT: String(port) }, logFile: join(options.workDir, `${name}.log`) });
  const origin = `http://127.0.0.1:${port}`;
  const healthy = () => fetch(`${origin}/healthz`).then((res) => res.arrayBuffer().then(() => res.ok), () => false);
  await waitUntil(`${name} did not become healthy at ${origin} (or it exited)`, healthy, proc.ended);
  return { proc, origin };
}

/** The service as it ships: the built CLI's `offerdesk serve --no-worker`, `env` on top of benchEnv. */
export function startService(name: string, databaseUrl: string, env: Record<string, string>, workDir: string, nodeArgs: string[] = [], cpu?: number) {
  const common = { ...benchEnv(databaseUrl), OFFERDESK_DEMO_SEED: 'false', HOST: '127.0.0.1' };
  return startServer(name, 'bin/offerdesk.js', { built: true, args: ['serve', '--no-worker'], nodeArgs, cpu, env: { ...common, ...env }, workDir });
}

/** Writing 5 to clear_refs resets the kernel's high-water mark (VmHWM), so each scenario gets its own peak. */
export function resetPeakRss(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not resettable here: the peak is then the process's since its start.
  }
}

export function peakRssMb(pid: number): number | null {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readProc(pid, 'status') ?? '');
  return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
}

/** A /proc file of the process, or null once it has ended. */
function readProc(pid: number, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** CPU time (user + system) used so far, in ms: comparable on a noisy machine where throughput swings. */
export function cpuMs(pid: number): number | null {
  const stat = readProc(pid, 'stat');
  if (stat === null) return null;
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/** Runs a script to completion and returns the last line of its stdout parsed as JSON. */
export async function runJson<T>(name: string, script: string, args: string[], env: Record<string, string> = {}, built = false): Promise<T> {
  const proc = startNode(name, script, { args, env, pipeStdout: true, built });
  const code = await proc.exited;
  const last = proc.output().trim().split('\n').pop() ?? '';
  if (code !== 0) throw new Error(`${name} exited with ${code}: ${last.slice(0, 500)}`);
  return JSON.parse(last) as T;
}

/** One `offerdesk` command as a user runs it (the built CLI, `--json`) against the bench database. */
export function cli<T>(databaseUrl: string, args: string[]): Promise<T> {
  return runJson<T>(`offerdesk ${args[0]}`, 'bin/offerdesk.js', [...args, '--json'], { DATABASE_URL: databaseUrl, OFFERDESK_DEMO_SEED: 'false' }, true);
}

let built = false;
/** `npm start`'s build step: dist/ rebuilt when a source is newer, so the bench runs what ships. */
function buildIfStale(): void {
  if (built) return;
  const result = spawnSync(process.execPath, [join(REPO_DIR, 'scripts', 'build-if-stale.mjs')], { cwd: REPO_DIR, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`building dist/ failed (exit ${result.status})`);
  built = true;
}
