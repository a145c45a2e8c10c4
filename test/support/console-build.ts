import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

/** Rebuilds dist/console when a source under web/ is newer than it (the tests serve the build). */
export function ensureConsoleBuilt(): void {
  const newest = (path: string): number => {
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs;
    return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newest(join(path, entry))));
  };
  const index = join(projectRoot, 'dist', 'console', 'index.html');
  const sources = Math.max(newest(join(projectRoot, 'web')), newest(join(projectRoot, 'generated', 'console-api.ts')));
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  const vite = join(projectRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
    cwd: projectRoot,
    stdio: 'inherit',
    // vitest runs with NODE_ENV=test, which would make Vite bundle React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error('building the console (vite build) failed');
}
