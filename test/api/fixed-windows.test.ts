import { afterEach, describe, expect, it, vi } from 'vitest';
import { FixedWindows } from '../../src/api/admission/fixed-windows.js';

const WINDOW_MS = 60_000;
const START = Date.parse('2026-03-01T12:00:00.000Z');

// The store's own sweep interval is far off (an hour): every test sweeps by hand at a chosen time.
function windowsAt(start = START) {
  let now = start;
  const windows = new FixedWindows({ windowMs: WINDOW_MS, sweepEveryMs: 3_600_000, now: () => now });
  open.push(windows);
  return {
    windows,
    at(ms: number) {
      now = start + ms;
    },
  };
}
const open: FixedWindows[] = [];
afterEach(() => {
  for (const windows of open.splice(0)) windows.close();
  vi.useRealTimers();
});

describe('fixed windows in memory (openapi.yaml "Limits")', () => {
  it('the first request opens a window of 60 seconds', () => {
    const { windows } = windowsAt();
    expect(windows.hit('a')).toEqual({ count: 1, msLeft: 60_000 });
  });

  it('later requests in the window count on and see the same end', () => {
    const { windows, at } = windowsAt();
    windows.hit('a');
    at(45_000);
    expect(windows.hit('a')).toEqual({ count: 2, msLeft: 15_000 });
    at(59_999);
    expect(windows.hit('a')).toEqual({ count: 3, msLeft: 1 });
  });

  it('the window ends exactly 60 seconds after its first request; the next request opens a new one', () => {
    const { windows, at } = windowsAt();
    windows.hit('a');
    windows.hit('a');
    at(60_000);
    expect(windows.hit('a')).toEqual({ count: 1, msLeft: 60_000 });
    at(75_000);
    expect(windows.hit('a')).toEqual({ count: 2, msLeft: 45_000 });
  });

  it('a new window starts with the next request, not when the last one ended', () => {
    const { windows, at } = windowsAt();
    windows.hit('a');
    at(200_000);
    expect(windows.hit('a')).toEqual({ count: 1, msLeft: 60_000 });
    at(259_999);
    expect(windows.hit('a').count).toBe(2);
  });

  it('each key has its own count and its own window', () => {
    const { windows, at } = windowsAt();
    windows.hit('a');
    windows.hit('a');
    at(30_000);
    expect(windows.hit('b')).toEqual({ count: 1, msLeft: 60_000 });
    expect(windows.hit('a')).toEqual({ count: 3, msLeft: 30_000 });
    at(60_000);
    expect(windows.hit('a')).toEqual({ count: 1, msLeft: 60_000 });
    expect(windows.hit('b')).toEqual({ count: 2, msLeft: 30_000 });
  });

  it('a sweep removes the windows that have ended and keeps the open ones', () => {
    const { windows, at } = windowsAt();
    for (let i = 0; i < 1_000; i++) windows.hit(`early-${i}`);
    at(30_000);
    windows.hit('late');
    expect(windows.size).toBe(1_001);
    at(59_999);
    windows.sweep();
    expect(windows.size).toBe(1_001);
    at(60_000);
    windows.sweep();
    expect(windows.size).toBe(1);
    expect(windows.hit('late')).toEqual({ count: 2, msLeft: 30_000 });
    expect(windows.hit('early-0')).toEqual({ count: 1, msLeft: 60_000 });
  });

  it('its own interval sweeps ended windows without being asked', () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'], now: START });
    const windows = new FixedWindows({ windowMs: WINDOW_MS, sweepEveryMs: 10_000 });
    open.push(windows);
    for (let i = 0; i < 100; i++) windows.hit(`k${i}`);
    vi.advanceTimersByTime(60_000);
    expect(windows.size).toBe(0);
  });
});
