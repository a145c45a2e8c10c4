/** The p-th percentile of values sorted ascending (nearest rank; 0 for none). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Math.max(...values) overflows the call stack at a few hundred thousand arrivals. */
export function largest(values: number[]): number {
  return values.reduce((max, value) => (value > max ? value : max), -Infinity);
}
