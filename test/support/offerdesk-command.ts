import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../src/paths.js';

/**
 * The `offerdesk` command as users run it: `bin/offerdesk.js`, which runs the compiled CLI in
 * dist/. Tests that start the CLI, `serve` or `worker` as real processes use it, so each start
 * costs what it costs a user, not a TypeScript compile of the whole tree (through tsx, a process
 * start took about three times as long, and the process tests were most of the suite's time).
 * The global setup (build-setup.ts) rebuilds dist/ first when a source is newer (ensureBuilt).
 */
export const OFFERDESK_BIN = join(projectRoot, 'bin', 'offerdesk.js');

/** Node's arguments that run `offerdesk <args...>`. */
export function offerdeskArgs(...args: string[]): string[] {
  return [OFFERDESK_BIN, ...args];
}

/**
 * Builds dist/ (server, console, API reference) when a source is newer, with the rule `npm start`
 * uses (scripts/build-if-stale.mjs). NODE_ENV is set for the build: vitest runs with
 * NODE_ENV=test, which would make Vite bundle React's development build.
 */
export function ensureBuilt(): void {
  const script = join(projectRoot, 'scripts', 'build-if-stale.mjs');
  const result = spawnSync(process.execPath, [script], { cwd: projectRoot, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) throw new Error('building dist/ (scripts/build-if-stale.mjs) failed');
}
