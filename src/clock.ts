/**
 * Every "now" of the service comes from a Clock, never from `new Date()` in business code,
 * so tests can move time (expiry, retry pauses) without sleeping. The API's rate windows are the
 * exception: they read `Date.now()` (src/api/admission/fixed-windows.ts takes a `now` function for
 * its own tests), and the API's limit tests move it with vitest's fake Date.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-15T10:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
