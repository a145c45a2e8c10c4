import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { projectRoot } from '../../src/paths.js';

/**
 * postgres.js moves each connection between its pool's queues (open, busy, full...) on every
 * query, and finds it in the queue it leaves with a linear search (`remove`). Unpatched, a queue
 * kept every slot it had shifted out until it ran empty, so under steady load (a queue that never
 * drains) each query's search grew with every query before it: 28 µs a query at first, 90 µs after
 * 300,000 (patches/README.md). patches/postgres+3.4.9.patch searches only the queued part and
 * drops the shifted slots once they are half the array.
 */
const require = createRequire(import.meta.url);
type Queue = { length: number; push(x: object): object; shift(): object; remove(x: object): object | null };
// By path: the package's exports do not name its internal modules.
const makeQueue = require(join(projectRoot, 'node_modules', 'postgres', 'cjs', 'src', 'queue.js')) as (initial?: object[]) => Queue;

afterEach(() => vi.restoreAllMocks());

describe("postgres.js's pool queue (patched)", () => {
  it('keeps its array bounded, and its searches short, when it never drains', () => {
    const queue = makeQueue();
    const connections = Array.from({ length: 10 }, (_, i) => ({ i }));
    for (const c of connections) queue.push(c);
    // A pool under steady load: connections leave from the front and come back, never all gone.
    for (let i = 0; i < 200_000; i++) queue.push(queue.shift());

    const out = queue.shift();
    const last = connections.find((c) => c !== out)!;
    const scanned: number[] = [];
    const indexOf = Array.prototype.indexOf;
    vi.spyOn(Array.prototype, 'indexOf').mockImplementation(function (this: unknown[], ...args: [unknown, number?]) {
      scanned.push(this.length - (args[1] ?? 0));
      return indexOf.apply(this, args);
    });
    const removed = queue.remove(last);
    vi.restoreAllMocks();

    expect(removed).toBe(last);
    expect(scanned).toHaveLength(1);
    // What remove searched: the queued connections, not the 200,000 slots shifted out before them.
    expect(scanned[0]).toBeLessThanOrEqual(connections.length);
    expect(queue.length).toBe(connections.length - 2);
  });

  it('still hands out, finds and removes exactly what it holds', () => {
    const queue = makeQueue();
    const items = Array.from({ length: 3000 }, (_, i) => ({ i }));
    for (const x of items) queue.push(x);
    const order: number[] = [];
    for (let i = 0; i < 2500; i++) order.push((queue.shift() as { i: number }).i);
    expect(order).toEqual(items.slice(0, 2500).map((x) => x.i));
    expect(queue.remove(items[10]!)).toBeNull(); // shifted out already
    expect(queue.remove(items[2999]!)).toBe(items[2999]);
    expect(queue.length).toBe(499);
    expect((queue.shift() as { i: number }).i).toBe(2500);
  });
});
