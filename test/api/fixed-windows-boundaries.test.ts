import { afterEach, describe, expect, it } from 'vitest';
import { FixedWindows } from '../../src/api/admission/fixed-windows.js';

/**
 * The fixed windows' housekeeping (test/api/fixed-windows.test.ts has the windows themselves): the
 * sweep only frees memory, so it must not keep a process alive that is otherwise done, and a closed
 * store holds nothing.
 */

const open: FixedWindows[] = [];
afterEach(() => {
  for (const windows of open.splice(0)) windows.close();
});

const refedTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('fixed windows: the sweep and close', () => {
  it('the sweep\'s interval keeps no process alive', () => {
    const before = refedTimers();
    open.push(new FixedWindows({ windowMs: 60_000, sweepEveryMs: 1_000 }));
    expect(refedTimers()).toBe(before);
  });

  it('a closed store holds no windows', () => {
    const windows = new FixedWindows({ windowMs: 60_000, sweepEveryMs: 1_000 });
    windows.hit('a');
    windows.hit('b');
    windows.close();
    expect(windows.size).toBe(0);
  });
});
