import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { REPO_DIR, runJson, startNode, waitUntil, type NodeProcess } from '../bench/processes.js';
import { definedEnv } from './traffic.js';

/**
 * The upgrade drill's old worker: the commit just before the newest migration file was added,
 * checked out with `git worktree add` into a temporary directory and built there. Its
 * node_modules is this checkout's when the lock files are the same (else `npm ci` there).
 */
export interface OldRelease {
  commit: string;
  newestMigration: string;
  /** The old `bin/offerdesk.js`, relative to the repository (what startNode takes). */
  bin: string;
  /** The old checkout, built (its `dist/`). */
  dir: string;
  cleanup(): void;
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_DIR, encoding: 'utf8' }).trim();

export function prepareOldRelease(log: (line: string) => void): OldRelease {
  const newestMigration = readdirSync(join(REPO_DIR, 'src', 'db', 'migrations')).filter((f) => f.endsWith('.sql')).sort().pop()!;
  // Along main's own line (a merge counts as the commit that brought the file), so that the old
  // release is main as it was just before, whatever branch the migration was written on.
  const added = git('log', '-1', '--first-parent', '-m', '--no-renames', '--format=%H', '--diff-filter=A', '--', `src/db/migrations/${newestMigration}`);
  if (!added) throw new Error(`no commit adds src/db/migrations/${newestMigration}`);
  const commit = git('rev-parse', `${added}^1`);
  const dir = mkdtempSync(join(tmpdir(), 'offerdesk-soak-old-'));
  rmSync(dir, { recursive: true, force: true });
  git('worktree', 'add', '--detach', dir, commit);
  const cleanup = () => {
    try {
      git('worktree', 'remove', '--force', dir);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      git('worktree', 'prune');
    }
  };
  try {
    const sameLock = readFileSync(join(dir, 'package-lock.json'), 'utf8') === readFileSync(join(REPO_DIR, 'package-lock.json'), 'utf8');
    if (sameLock) symlinkSync(join(REPO_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
    else {
      log(`upgrade drill: the old commit's lock file differs; npm ci in ${dir}`);
      const installed = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir, stdio: 'inherit' });
      if (installed.status !== 0) throw new Error('npm ci of the old commit failed');
    }
    // The server only (the worker runs it); the console and docs are not needed.
    const built = spawnSync(process.execPath, [join(REPO_DIR, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
    if (built.status !== 0 || !existsSync(join(dir, 'dist', 'src', 'cli', 'main.js'))) throw new Error('building the old commit failed');
  } catch (error) {
    cleanup();
    throw error;
  }
  log(`upgrade drill: ${commit.slice(0, 12)} (before ${newestMigration}) built in ${dir}`);
  return { commit, newestMigration, bin: relative(REPO_DIR, join(dir, 'bin', 'offerdesk.js')), dir, cleanup };
}

/** The old release's `offerdesk migrate`: the database gets the old schema only. */
export async function migrateOld(old: OldRelease, env: Record<string, string | undefined>): Promise<unknown> {
  return runJson('old offerdesk migrate', old.bin, ['migrate', '--json'], definedEnv(env), true);
}

/** The old release's `offerdesk worker`, once its delivery loop runs. */
export async function startOldWorker(old: OldRelease, env: Record<string, string | undefined>, logDir: string, metricsPort: number): Promise<NodeProcess> {
  const proc = startNode('old-worker', old.bin, {
    built: true,
    args: ['worker'],
    env: { ...definedEnv(env), LOG_LEVEL: 'info', OFFERDESK_METRICS_PORT: String(metricsPort) },
    logFile: join(logDir, 'old-worker.log'),
    pipeStdout: true,
  });
  await waitUntil('the old worker did not start (see old-worker.log)', async () => proc.output().includes('webhook worker started'), proc.ended);
  return proc;
}
