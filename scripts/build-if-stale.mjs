#!/usr/bin/env node
// `npm start` runs the compiled CLI and serves the built console and API reference; this rebuilds
// them first when any TypeScript source, the console's sources (web/), the generated types, a
// tsconfig or openapi.yaml (the API reference, /docs) is newer than the build (or there is no
// build yet).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const builtEntries = [join(root, 'dist', 'src', 'cli', 'main.js'), join(root, 'dist', 'console', 'index.html')];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its directory
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

const sources = ['src', 'generated', 'web', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'openapi.yaml', 'scripts/build-docs.mjs'];
const newestSource = Math.max(...sources.map((s) => newestMtime(join(root, s))));
const built = Math.min(...builtEntries.map((entry) => (existsSync(entry) ? statSync(entry).mtimeMs : 0)));

if (built < newestSource) {
  process.stderr.write(built === 0 ? 'building (first start)...\n' : 'sources changed; rebuilding...\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
