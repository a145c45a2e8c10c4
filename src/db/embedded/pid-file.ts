import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { acceptsConnections } from '../../port-probe.js';
import { POLL_MS, START_TIMEOUT_MS, sleep } from './settings.js';

/** postmaster.pid (trap 3 of start.ts) and servers already running. */

export interface RunningServer {
  pid: number;
  port: number;
}

/**
 * `postmaster.pid` lines (PostgreSQL's pidfile.h): 1 pid, 2 data dir, 3 start time, 4 port,
 * 5 socket dir, 6 listen address, 7 shared memory key, 8 status (`starting`, `stopping`, `ready`).
 */
export function readPidFile(pgDir: string): { pid: number; port: number; status: string } | undefined {
  let text: string;
  try {
    text = readFileSync(join(pgDir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return { pid: 0, port: 0, status: 'corrupt' };
  return { pid, port, status: (lines[7] ?? '').trim() };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `pid` is the postmaster of `pgDir`, not some other process that reused its pid. Where
 * /proc is unavailable (macOS), a live pid is taken at its word.
 */
function isPostmasterOf(pid: number, pgDir: string): boolean {
  if (!isAlive(pid)) return false;
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return !existsSync('/proc/self');
  }
  const program = argv[0] ?? '';
  const dataArg = argv[argv.indexOf('-D') + 1];
  return /postgres$/.test(program) && dataArg !== undefined && resolve(dataArg) === pgDir;
}

export async function findRunningServer(pgDir: string, log: (line: string) => void): Promise<RunningServer | undefined> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const pidFile = readPidFile(pgDir);
    if (!pidFile) return undefined;
    if (!isPostmasterOf(pidFile.pid, pgDir)) {
      // Trap 3: left by a server that died (crash, kill -9, container restart); PostgreSQL itself
      // refuses to start when the recorded pid now belongs to another live process.
      log(`removing stale ${join(pgDir, 'postmaster.pid')} (pid ${pidFile.pid} is not running this server)`);
      rmSync(join(pgDir, 'postmaster.pid'), { force: true });
      return undefined;
    }
    if (pidFile.status === 'ready' && (await acceptsConnections(pidFile.port, PORT_PROBE_MS))) {
      return { pid: pidFile.pid, port: pidFile.port };
    }
    // Starting (crash recovery) or stopping: wait until it is one or the other.
    if (Date.now() > deadline) {
      throw new Error(`embedded PostgreSQL (pid ${pidFile.pid}) in ${pgDir} is neither ready nor stopping; see postgres.log`);
    }
    await sleep(POLL_MS * 4);
  }
}

/** A live server answers at once; a stale pid file's port answers nothing. */
const PORT_PROBE_MS = 2_000;
