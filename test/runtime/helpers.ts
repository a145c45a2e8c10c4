import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectRoot } from '../../src/paths.js';
import { offerdeskArgs } from '../support/offerdesk-command.js';

/** Whether a process exists: the embedded PostgreSQL's own check. */
export { isAlive } from '../../src/db/embedded/pid-file.js';

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `offerdesk-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Runs a TypeScript fixture of the tests (not part of the build) as a real Node process, through tsx. */
export function spawnTs(entry: string, args: string[], env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(projectRoot, entry), ...args], {
    cwd: projectRoot,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `offerdesk <args...>` (the compiled CLI, as users run it) as a real Node process. */
export function spawnOfferdesk(args: string[], env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, offerdeskArgs(...args), {
    cwd: projectRoot,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Collects a child's output and resolves the first stdout line matching `pattern`. */
export function outputOf(child: ChildProcess): {
  text(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
} {
  let text = '';
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  const onLine = (line: string) => {
    text += `${line}\n`;
    for (const waiter of [...waiters]) {
      const match = line.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', (line) => {
    text += `[stderr] ${line}\n`;
  });
  return {
    text: () => text,
    waitFor(pattern, timeoutMs = 30_000) {
      const already = text.split('\n').map((line) => line.match(pattern)).find(Boolean);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no output line matching ${pattern} within ${timeoutMs} ms; output:\n${text}`)),
          timeoutMs,
        );
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`process exited (${code ?? signal}) before printing ${pattern}; output:\n${text}`));
        });
        waiters.push({
          pattern,
          resolve: (match) => {
            clearTimeout(timer);
            resolve(match);
          },
        });
      });
    },
  };
}

export function exitOf(child: ChildProcess, timeoutMs: number): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}


export { until } from '../support/until.js';

export function postmasterPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}
