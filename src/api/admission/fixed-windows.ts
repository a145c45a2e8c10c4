/**
 * Fixed-window request counters in this process's memory, one small entry per key in one Map.
 *
 * openapi.yaml "Limits": "Each limit uses a fixed 60-second window, starting with the first
 * request and ending 60 seconds later; the next request starts a new window." A window covers
 * [start, start + windowMs): a request exactly windowMs after the first opens the next window.
 *
 * Every key that reaches a limit gets an entry, unknown API keys included (openapi.yaml "Limits" counts them),
 * so a storm of random keys makes tens of thousands of entries a minute. They are kept lean: no
 * timer per key (rate-limiter-flexible's memory store holds a record and a setTimeout per key,
 * about 450 bytes each), and one unref'd interval removes ended windows. A key whose window has
 * ended and that is asked again before the sweep gets a new window in place.
 */

export interface FixedWindowsOptions {
  windowMs: number;
  /** How often ended windows are removed; an ended window lives at most this long past its end. */
  sweepEveryMs: number;
  /** Milliseconds since the epoch; read on every call, so a test may move time. */
  now?: () => number;
}

export interface WindowCount {
  /** Requests in the current window, this one included. */
  count: number;
  /** Milliseconds until the current window ends (always > 0). */
  msLeft: number;
}

interface Window {
  count: number;
  /** Epoch ms at which the window ends (exclusive). */
  end: number;
}

export class FixedWindows {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: FixedWindowsOptions) {
    this.windowMs = options.windowMs;
    this.now = options.now ?? (() => Date.now());
    this.sweeper = setInterval(() => this.sweep(), options.sweepEveryMs);
    // The sweep only frees memory: it must not keep a process alive that is otherwise done.
    this.sweeper.unref();
  }

  /** Counts one request for `key` in its current window, opening a new window if none is open. */
  hit(key: string): WindowCount {
    const now = this.now();
    const open = this.windows.get(key);
    if (open === undefined) {
      this.windows.set(key, { count: 1, end: now + this.windowMs });
      return { count: 1, msLeft: this.windowMs };
    }
    if (open.end <= now) {
      open.count = 1;
      open.end = now + this.windowMs;
    } else {
      open.count += 1;
    }
    return { count: open.count, msLeft: open.end - now };
  }

  /** Removes every window that has ended. */
  sweep(): void {
    const now = this.now();
    for (const [key, window] of this.windows) {
      if (window.end <= now) this.windows.delete(key);
    }
  }

  /** Keys with an entry, ended windows not yet swept included. */
  get size(): number {
    return this.windows.size;
  }

  close(): void {
    clearInterval(this.sweeper);
    this.windows.clear();
  }
}
