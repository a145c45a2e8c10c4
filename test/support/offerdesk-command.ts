import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

/**
 * The `offerdesk` command as users run it: `bin/offerdesk.js`, which runs the compiled CLI in
 * dist/. Tests that start the CLI, `serve` or `worker` as real processes use it, so each start
 * costs what it costs a user, not a TypeScript compile of the whole tree (through tsx, a process
 * start took about three times as long, and the process tests were most of the suite's time).
 * The global setup (build-setup.ts) rebuilds dist/ first when a source is newer.
 */
export const OFFERDESK_BIN = join(projectRoot, 'bin', 'offerdesk.js');

/** Node's arguments that run `offerdesk <args...>`. */
export function offerdeskArgs(...args: string[]): string[] {
  return [OFFERDESK_BIN, ...args];
}

const SERVER_SOURCES = ['src', 'generated', 'tsconfig.json', 'tsconfig.build.json'];
const SERVER_BUILD = join(projectRoot, 'dist', 'src', 'cli', 'main.js');

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  // A deleted file changes its directory's time.
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

/** Compiles src/ into dist/ (tsc, as `npm run build:server`) when a source is newer than the build. */
export function ensureServerBuilt(): void {
  const built = existsSync(SERVER_BUILD) ? statSync(SERVER_BUILD).mtimeMs : 0;
  const sources = Math.max(...SERVER_SOURCES.map((source) => newestMtime(join(projectRoot, source))));
  if (built >= sources) return;
  const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: projectRoot, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('compiling the server (tsc -p tsconfig.build.json) failed');
}
