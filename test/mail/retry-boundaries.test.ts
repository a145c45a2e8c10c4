import { describe, expect, it } from 'vitest';
import { nextMailAttemptAt } from '../../src/mail/policy.js';

/**
 * When a mail that failed for now is tried again (README.md, "Mail"): pauses of
 * 1 m, 5 m, 15 m, 30 m and then 1 h after each further try, until temporary failures have lasted
 * three days since the first try; a try that would fall after that ends the mail as refused. The
 * numbers are written out, so a wrong constant fails too.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FIRST = new Date('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(FIRST.getTime() + ms);

describe('mail retries: the pause after each try', () => {
  it.each([
    [1, 1 * MINUTE],
    [2, 5 * MINUTE],
    [3, 15 * MINUTE],
    [4, 30 * MINUTE],
    [5, 1 * HOUR],
    [6, 1 * HOUR],
    [40, 1 * HOUR],
  ])('after try %i the next is %i ms later', (attempts, pause) => {
    const now = at(10 * MINUTE);
    expect(nextMailAttemptAt({ attempts, firstAttemptAt: FIRST, now })).toEqual(new Date(now.getTime() + pause));
  });
});

describe('mail retries: three days from the first try', () => {
  it.each([
    ['one millisecond before the end of the window', 3 * DAY - 1, true],
    ['exactly at its end', 3 * DAY, true],
    ['one millisecond past its end', 3 * DAY + 1, false],
  ])('a next try %s is %s', (_name, nextAfterFirst, tried) => {
    // After the fifth try the pause is an hour: the try is placed by choosing `now`.
    const now = at(nextAfterFirst - HOUR);
    const next = nextMailAttemptAt({ attempts: 5, firstAttemptAt: FIRST, now });
    expect(next).toEqual(tried ? at(nextAfterFirst) : null);
  });
});
