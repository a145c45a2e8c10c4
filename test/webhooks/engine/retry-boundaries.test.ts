import { describe, expect, it } from 'vitest';
import { decideAfterAttempt } from '../../../src/webhooks/engine/outcome.js';
import { hasResendLeft } from '../../../src/webhooks/engine/policy.js';

/**
 * What follows one attempt (openapi.yaml, "Retries": 8 attempts in total, the pauses before
 * attempts 2 to 8 being 1 minute, 5 minutes, 30 minutes, 2 hours, 5 hours, 8 hours and 8 hours,
 * each counted from the end of the failed attempt). The numbers are written out, so a wrong
 * constant fails too; a resend is one attempt more than those made (docs/delivery-log.md).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const FINISHED = new Date('2026-03-01T12:00:00.000Z');

describe('the retry schedule of 8 attempts', () => {
  it.each([
    [1, 1 * MINUTE],
    [2, 5 * MINUTE],
    [3, 30 * MINUTE],
    [4, 2 * HOUR],
    [5, 5 * HOUR],
    [6, 8 * HOUR],
    [7, 8 * HOUR],
  ])('failed attempt %i is followed by the next after %i ms', (attempt, pause) => {
    expect(decideAfterAttempt({ ok: false, attempt, maxAttempts: 8, finishedAt: FINISHED })).toEqual({
      kind: 'retry-scheduled',
      nextAttemptAt: new Date(FINISHED.getTime() + pause),
    });
  });

  it.each([8, 9])('failed attempt %i of 8 fails the delivery finally', (attempt) => {
    expect(decideAfterAttempt({ ok: false, attempt, maxAttempts: 8, finishedAt: FINISHED })).toEqual({ kind: 'failed-finally' });
  });

  it.each([1, 7, 8])('a successful attempt %i delivers', (attempt) => {
    expect(decideAfterAttempt({ ok: true, attempt, maxAttempts: 8, finishedAt: FINISHED })).toEqual({ kind: 'delivered' });
  });
});

describe('a resend is one attempt', () => {
  it.each([
    ['after 3 attempts', 4],
    ['after all 8', 9],
    ['after 8 and 4 resends', 13],
  ])('a failed resend %s fails finally', (_name, attempt) => {
    expect(decideAfterAttempt({ ok: false, attempt, maxAttempts: attempt, finishedAt: FINISHED })).toEqual({ kind: 'failed-finally' });
  });
});

// openapi.yaml "Webhook delivery and retries": resent "up to 5 times".
describe('a delivery can be resent 5 times', () => {
  it.each([
    [0, true],
    [4, true],
    [5, false],
    [6, false],
  ])('after %i resends, one more is allowed: %s', (resends, allowed) => {
    expect(hasResendLeft(resends)).toBe(allowed);
  });
});
