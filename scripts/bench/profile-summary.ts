import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a V8 CPU profile (`npm run bench -- --only read --profile`, bench/profiles/) spends its
 * time, summed by self time per package, node internal, or project folder, busy time only:
 *
 *   node --import tsx scripts/bench/profile-summary.ts bench/profiles
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function bucket(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(idle)' || functionName === '(program)' || functionName === '(root)') return functionName;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (!url) return `native: ${functionName || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/')[0]}`;
  const own = /\/(src|dist\/src)\/([^/]+)/.exec(url);
  if (own) return `offerdesk src/${own[2]}`;
  return url;
}

const dir = process.argv[2] ?? 'bench/profiles';
const totals = new Map<string, number>();
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const key = bucket(byId.get(id)!);
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
}
const busy = [...totals].filter(([key]) => key !== '(idle)' && key !== '(root)');
const sum = busy.reduce((s, [, t]) => s + t, 0);
process.stdout.write(`busy ${(sum / 1e6).toFixed(1)} s of CPU samples\n`);
for (const [key, t] of busy.sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  process.stdout.write(`${((100 * t) / sum).toFixed(1).padStart(5)}%  ${key}\n`);
}
