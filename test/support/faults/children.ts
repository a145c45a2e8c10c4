import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../../../src/paths.js';
import { offerdeskArgs } from '../offerdesk-command.js';

/** The service's own processes under fault: `serve` and `worker`, run from source like `npm start`. */

const START_DEADLINE_MS = 60_000;
const STOP_DEADLINE_MS = 30_000;

export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Resolves the first parsed stdout JSON line for which `match` returns a value. */
  waitFor<T>(match: (line: Record<string, unknown>) => T | undefined, timeoutMs?: number): Promise<T>;
  /** SIGKILL, no grace: the fault "a worker killed with -9 mid-attempt". */
  kill9(): Promise<void>;
  /** SIGTERM and wait (SIGKILL after STOP_DEADLINE_MS). */
  stop(): Promise<void>;
}

const running = new Set<Child>();

/** Every child still running, for the harness's last cleanup. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop()));
}

function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export function startChild(name: string, args: string[], env: Record<string, string | undefined>, logDir: string): Child {
  const child = spawn(process.execPath, offerdeskArgs(...args), {
    cwd: projectRoot,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  child.stderr!.pipe(log, { end: false });
  const waiters = new Set<(line: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout! }).on('line', (text) => {
    log.write(`${text}\n`);
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    for (const waiter of [...waiters]) waiter(line);
  });
  const handle: Child = {
    name,
    pid: child.pid!,
    process: child,
    waitFor(match, timeoutMs = START_DEADLINE_MS) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`${name}: no matching output within ${timeoutMs} ms (see ${name}.log)`)), timeoutMs);
        const onExit = () => finish(new Error(`${name} exited before it was ready (see ${name}.log)`));
        const waiter = (line: Record<string, unknown>) => {
          const value = match(line);
          if (value !== undefined) finish(undefined, value);
        };
        function finish(error?: Error, value?: unknown) {
          clearTimeout(timer);
          waiters.delete(waiter);
          child.off('exit', onExit);
          if (error) reject(error);
          else resolve(value as never);
        }
        waiters.add(waiter);
        child.once('exit', onExit);
      });
    },
    async kill9() {
      child.kill('SIGKILL');
      await ended(child);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
        await ended(child);
        clearTimeout(timer);
      }
      log.end();
    },
  };
  running.add(handle);
  void ended(child).then(() => running.delete(handle));
  return handle;
}

/** `serve --no-worker`: resolves once it printed its base URL (serve --json). */
export async function startApi(env: Record<string, string | undefined>, logDir: string): Promise<{ child: Child; baseUrl: string; origin: string }> {
  const child = startChild('api', ['serve', '--no-worker', '--port', '0', '--json'], env, logDir);
  const baseUrl = await child.waitFor((line) => (typeof line.base_url === 'string' ? line.base_url : undefined));
  return { child, baseUrl, origin: new URL(baseUrl).origin };
}

/** `worker`: resolves once its delivery loop runs. */
export async function startWorkerProcess(name: string, env: Record<string, string | undefined>, logDir: string): Promise<Child> {
  const child = startChild(name, ['worker'], { ...env, LOG_LEVEL: 'info' }, logDir);
  await child.waitFor((line) => (line.msg === 'webhook worker started' ? true : undefined));
  return child;
}
