import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../../src/service/heap-growth.js';

const HEAP_GROWTH = fileURLToPath(new URL('../../src/service/heap-growth.ts', import.meta.url));

/**
 * A process that keeps about 30 MB alive and makes garbage the way a busy API does (short-lived
 * objects, some outliving a young-generation collection), then prints the largest old generation
 * it saw. `bound` says whether it calls boundHeapGrowth first, as `offerdesk serve` does.
 */
function peakOldSpaceMb(bound: boolean): number {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    ${bound ? `const { boundHeapGrowth } = await import(${JSON.stringify(HEAP_GROWTH)}); boundHeapGrowth();` : ''}
    const live = Array.from({ length: 300_000 }, (_, i) => ({ i, text: 'live ' + i }));
    let inFlight = [];
    let peak = 0;
    for (let round = 0; round < 1_500; round++) {
      for (let i = 0; i < 2_000; i++) inFlight.push({ round, i, text: 'request ' + round + ' ' + i, rows: [i, i + 1, i + 2] });
      if (inFlight.length > 20_000) inFlight = inFlight.slice(10_000);
      const old = getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
      peak = Math.max(peak, old.space_size);
    }
    console.log(JSON.stringify({ peakMb: peak / 1e6, live: live.length }));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return (JSON.parse(run.stdout.trim().split('\n').pop()!) as { peakMb: number }).peakMb;
}

describe('boundHeapGrowth', () => {
  it('holds the old generation well below where V8 would let it grow', () => {
    const unbounded = peakOldSpaceMb(false);
    const bounded = peakOldSpaceMb(true);
    expect(bounded).toBeLessThan(unbounded * 0.8);
  }, 60_000);

  it("leaves an operator's own choice on node's command line alone", () => {
    expect(boundHeapGrowth(['--heap-growing-percent=300'])).toBe(false);
    expect(boundHeapGrowth(['--heap_growing_percent=300'])).toBe(false);
  });
});
