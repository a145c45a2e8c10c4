import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './pid-file.js';
import { POLL_MS, START_LOCK_ORPHAN_MS, START_LOCK_TIMEOUT_MS, sleep } from './settings.js';

/** One starter at a time per data directory, and who owns the running server. */

export function readOwnerPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postgres-owner'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function writeOwner(dataDir: string): void {
  writeFileSync(join(dataDir, 'postgres-owner'), `${process.pid}\n`);
}

/**
 * Serialises initdb and start across processes (and calls within one process): a lock directory,
 * created atomically, holding the holder's pid; a lock whose holder is dead is broken.
 */
export async function withStartLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const lockDir = join(dataDir, 'postgres.lock');
  const deadline = Date.now() + START_LOCK_TIMEOUT_MS;
  const token = `${process.pid}:${randomBytes(6).toString('hex')}`;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'holder'), token);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: string | undefined;
    try {
      holder = readFileSync(join(lockDir, 'holder'), 'utf8');
    } catch {
      holder = undefined;
    }
    const holderPid = holder ? Number(holder.split(':')[0]) : undefined;
    const orphaned =
      holderPid === undefined
        ? Date.now() - safeMtime(lockDir) > START_LOCK_ORPHAN_MS
        : !isAlive(holderPid);
    if (orphaned) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`another process (pid ${holderPid ?? 'unknown'}) has been starting PostgreSQL in ${dataDir} for too long`);
    }
    await sleep(POLL_MS * 2);
  }
  try {
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function safeMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}
