import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addSelfTime, type Profile } from './profile-buckets.js';

/**
 * Where a V8 CPU profile (`npm run bench -- --only read --profile`, bench/profiles/) spends its
 * time, summed by self time per package, node internal, or project folder, busy time only:
 *
 *   node --import tsx scripts/bench/profile-summary.ts bench/profiles
 */
const dir = process.argv[2] ?? 'bench/profiles';
const totals = new Map<string, number>();
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  addSelfTime(totals, JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile);
}
const busy = [...totals].filter(([key]) => key !== '(idle)' && key !== '(root)');
const sum = busy.reduce((s, [, t]) => s + t, 0);
process.stdout.write(`busy ${(sum / 1e6).toFixed(1)} s of CPU samples\n`);
for (const [key, t] of busy.sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  process.stdout.write(`${((100 * t) / sum).toFixed(1).padStart(5)}%  ${key}\n`);
}
