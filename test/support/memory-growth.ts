/** The soak's memory check (docs/reliability.md "Soak"): how much a process's memory grew once warm. */
export interface MemorySample {
  /** Milliseconds since the process started. */
  ageMs: number;
  rssMb: number | null;
  heapMb: number | null;
}

/**
 * Growth of a memory figure, in MB a minute, from the first `windowMs` after `warmupMs` of the
 * process's life to its last `windowMs`: each window's lowest sample (`floor`) or highest (`peak`).
 * The heap used swings by tens of MB between full collections (one every few minutes at the
 * soak's load), so a least-squares line through its samples follows where the last swing was cut;
 * its floor in a window holding a full collection is what survived it, and a leak raises it. RSS
 * dips when a collection hands pages back, so its peak is the figure a leak raises. Null while the
 * two windows would overlap.
 */
export function growthMbPerMinute(samples: MemorySample[], pick: (s: MemorySample) => number | null, edge: 'floor' | 'peak', warmupMs: number, windowMs: number): { growth: number; first: number; last: number; spanMinutes: number } | null {
  const points = samples.filter((s) => s.ageMs >= warmupMs).map((s) => [s.ageMs, pick(s)] as const).filter((p): p is readonly [number, number] => p[1] !== null);
  if (points.length < 2) return null;
  const [start, end] = [points[0]![0], points.at(-1)![0]];
  if (end - start < 2 * windowMs) return null;
  const extreme = (from: number, to: number) => {
    const values = points.filter(([age]) => age >= from && age <= to).map(([, mb]) => mb);
    return edge === 'floor' ? Math.min(...values) : Math.max(...values);
  };
  const first = extreme(start, start + windowMs);
  const last = extreme(end - windowMs, end);
  return { growth: (last - first) / ((end - start - windowMs) / 60_000), first, last, spanMinutes: (end - start) / 60_000 };
}
