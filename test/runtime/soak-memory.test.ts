import { describe, expect, it } from 'vitest';
import { growthMbPerMinute, type MemorySample } from '../support/memory-growth.js';

const MINUTE = 60_000;

/** A heap sampled every 30 s for `minutes`: a live set of 38 MB plus garbage that grows 3 MB a minute and is collected every 11 minutes. */
function sawtooth(minutes: number, leakMbPerMinute: number): MemorySample[] {
  return Array.from({ length: minutes * 2 + 1 }, (_, i) => {
    const age = i / 2;
    const heapMb = 38 + leakMbPerMinute * age + 3 * (age % 11);
    return { ageMs: age * MINUTE, heapMb, rssMb: 100 + heapMb };
  });
}

const heapFloor = (samples: MemorySample[]) => growthMbPerMinute(samples, (s) => s.heapMb, 'floor', 10 * MINUTE, 12 * MINUTE);

describe('growthMbPerMinute: the soak memory check (docs/reliability.md "Soak")', () => {
  it('finds a steady heap flat wherever its swings are cut', () => {
    for (const minutes of [44, 47, 50, 53]) expect(heapFloor(sawtooth(minutes, 0))!.growth).toBeCloseTo(0, 5);
  });

  it('finds what survives collections growing', () => {
    const growth = heapFloor(sawtooth(50, 0.3))!.growth;
    expect(growth).toBeGreaterThan(0.25);
    expect(growth).toBeLessThan(0.5);
  });

  it('judges RSS by its peaks, so a dip when pages go back to the system is no growth', () => {
    const samples = sawtooth(50, 0).map((s, i) => (i === 25 ? { ...s, rssMb: 60 } : s));
    expect(growthMbPerMinute(samples, (s) => s.rssMb, 'peak', 10 * MINUTE, 12 * MINUTE)!.growth).toBeCloseTo(0, 5);
  });

  it('does not judge a process too short-lived for two windows after its warm-up', () => {
    expect(heapFloor(sawtooth(33, 0))).toBeNull();
    expect(heapFloor(sawtooth(34, 0))).not.toBeNull();
  });
});
