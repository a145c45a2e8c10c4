import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * CPU profiles of one measured load, taken inside the server process (node:inspector) so that
 * start-up (module loading, compiling the document's validators) stays out of them, and their
 * self time summed per request by where it runs: a package, a node internal, a project folder.
 */

/** Sampling period of the profiler, in µs (--cpu-prof's default is 1000). */
export const SAMPLING_INTERVAL_US = 250;

/** In the server: the first SIGUSR2 starts profiling, the next writes the profile to `file`. */
export function profileOnSignal(file: string): void {
  const session = new Session();
  session.connect();
  let running = false;
  let busy = Promise.resolve();
  process.on('SIGUSR2', () => {
    busy = busy.then(async () => {
      if (!running) {
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
        await session.post('Profiler.start');
        running = true;
        return;
      }
      const { profile } = await session.post('Profiler.stop');
      running = false;
      // Renamed into place, so the orchestrator never reads half a file.
      writeFileSync(`${file}.partial`, JSON.stringify(profile));
      renameSync(`${file}.partial`, file);
    });
  });
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** As scripts/bench/profile-summary.ts buckets, with Ajv's generated validators named. */
function bucket(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(idle)' || functionName === '(program)' || functionName === '(root)') return functionName;
  if (functionName === '(garbage collector)') return 'garbage collection';
  // Ajv compiles each schema into a function without a source file.
  if (!url && /^validate\d*$/.test(functionName)) return 'ajv: generated validators';
  if (!url) return `native: ${functionName || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/')[0]}`;
  if (url.includes('/scripts/bench/')) return 'the rung itself (scripts/bench)';
  const own = /\/(src|dist\/src)\/([^/]+)/.exec(url);
  if (own) return `offerdesk src/${own[2]}`;
  return url;
}

/** Self time per bucket in µs per request, busy time only (idle left out). */
export function perRequest(profile: Profile, requests: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const key = bucket(byId.get(id)!);
    if (key === '(idle)' || key === '(root)') return;
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  for (const [key, us] of totals) totals.set(key, us / requests);
  return totals;
}
