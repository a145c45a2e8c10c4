import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { addSelfTime, type OwnBucket, type Profile } from '../profile-buckets.js';

export type { Profile };

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

/** The stack floor's own frames: Ajv's generated validators, and the rung's code. */
const stackFloorFrames: OwnBucket = ({ callFrame: { url, functionName } }) => {
  // Ajv compiles each schema into a function without a source file.
  if (!url && /^validate\d*$/.test(functionName)) return 'ajv: generated validators';
  if (url.includes('/scripts/bench/')) return 'the rung itself (scripts/bench)';
  return undefined;
};

/** Self time per bucket in µs per request, busy time only (idle left out). */
export function perRequest(profile: Profile, requests: number): Map<string, number> {
  const totals = new Map<string, number>();
  addSelfTime(totals, profile, stackFloorFrames);
  totals.delete('(idle)');
  totals.delete('(root)');
  for (const [key, us] of totals) totals.set(key, us / requests);
  return totals;
}
