import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../../src/clock.js';
import { supersededBy, trackHealth, type HealthSignal, type HealthState } from '../../../src/webhooks/engine/health.js';

/**
 * The health tracker on its own, against the numbers README "Endpoint health notices" states:
 * failing after an hour without a successful attempt while at least 3 attempts failed; a warning
 * at 3 of the 5 final failures in a row that pause the endpoint; the pause; the recovery. Written
 * with the documented numbers, not the constants of policy.ts, so a changed constant fails here.
 */

const NOW = new Date('2026-01-15T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const FAILING_SINCE = ago(3 * HOUR);

const at = (state: HealthState) => ({ state, failingSince: state === 'healthy' ? null : FAILING_SINCE });

function attempts(over: Partial<Extract<HealthSignal, { kind: 'attempts' }>> = {}): HealthSignal {
  return { kind: 'attempts', now: NOW, active: true, lastSuccessAt: null, firstFailureAt: ago(HOUR), failuresSinceSuccess: 3, ...over };
}

describe('trackHealth: final failures in a row', () => {
  it.each([
    { streak: 1, from: 'healthy', to: null },
    { streak: 2, from: 'healthy', to: null },
    { streak: 2, from: 'failing', to: null },
    { streak: 3, from: 'healthy', to: 'failures_3' },
    { streak: 3, from: 'failing', to: 'failures_3' },
    { streak: 4, from: 'failing', to: 'failures_3' },
    { streak: 4, from: 'failures_3', to: null },
    { streak: 5, from: 'failing', to: null },
    { streak: 5, from: 'failures_3', to: null },
    { streak: 6, from: 'failing', to: null },
    { streak: 3, from: 'paused', to: null },
  ] as const)('streak $streak from $from warns of the pause: $to', ({ streak, from, to }) => {
    const change = trackHealth(at(from), { kind: 'final-failure', streak });
    expect(change).toEqual(to === null ? null : { to, notice: 'endpoint_failures_3' });
  });
});

describe('trackHealth: the pause', () => {
  it.each(['healthy', 'failing', 'failures_3'] as const)('the pause from %s is told as paused', (from) => {
    expect(trackHealth(at(from), { kind: 'paused' })).toEqual({ to: 'paused', notice: 'endpoint_paused' });
  });

  it('a pause of an endpoint already told as paused is not told again', () => {
    expect(trackHealth(at('paused'), { kind: 'paused' })).toBeNull();
  });
});

describe('trackHealth: failing', () => {
  it('an active endpoint with no success for an hour and 3 failed attempts is failing', () => {
    expect(trackHealth(at('healthy'), attempts())).toEqual({ to: 'failing', notice: 'endpoint_failing' });
  });

  it.each([
    { why: 'the first failure is under an hour old', signal: attempts({ firstFailureAt: ago(59 * MINUTE) }) },
    { why: 'only 2 attempts failed', signal: attempts({ failuresSinceSuccess: 2 }) },
    { why: 'an attempt succeeded within the hour', signal: attempts({ firstFailureAt: ago(2 * HOUR), lastSuccessAt: ago(30 * MINUTE) }) },
    { why: 'the endpoint is paused', signal: attempts({ active: false }) },
    { why: 'nothing failed', signal: attempts({ firstFailureAt: null, failuresSinceSuccess: 0 }) },
  ])('is not failing when $why', ({ signal }) => {
    expect(trackHealth(at('healthy'), signal)).toBeNull();
  });

  it.each([
    { why: 'its last success was more than an hour ago', lastSuccessAt: ago(2 * HOUR), firstFailureAt: ago(90 * MINUTE) },
    { why: 'its last success was exactly an hour ago', lastSuccessAt: ago(HOUR), firstFailureAt: ago(HOUR) },
  ])('is failing when $why and 3 attempts failed since', ({ lastSuccessAt, firstFailureAt }) => {
    expect(trackHealth(at('healthy'), attempts({ lastSuccessAt, firstFailureAt }))).toEqual({ to: 'failing', notice: 'endpoint_failing' });
  });

  it('is not failing when its last success was a millisecond under an hour ago', () => {
    const signal = attempts({ lastSuccessAt: ago(HOUR - 1), firstFailureAt: ago(2 * HOUR) });
    expect(trackHealth(at('healthy'), signal)).toBeNull();
  });

  it.each(['failing', 'failures_3', 'paused'] as const)('an endpoint already %s is not told failing again', (from) => {
    expect(trackHealth(at(from), attempts({ firstFailureAt: ago(5 * HOUR), failuresSinceSuccess: 40 }))).toBeNull();
  });
});

describe('trackHealth: recovery', () => {
  const success = ago(MINUTE);

  it.each(['failing', 'failures_3', 'paused'] as const)('a success on an active endpoint after the failures began recovers it from %s', (from) => {
    const change = trackHealth(at(from), attempts({ lastSuccessAt: success, firstFailureAt: null, failuresSinceSuccess: 0 }));
    expect(change).toEqual({ to: 'healthy', notice: 'endpoint_recovered' });
  });

  it('a success on a paused endpoint recovers nothing: it stays paused until it is resumed', () => {
    const change = trackHealth(at('paused'), attempts({ active: false, lastSuccessAt: success, firstFailureAt: null, failuresSinceSuccess: 0 }));
    expect(change).toBeNull();
  });

  it('a success from before the failures began recovers nothing', () => {
    const change = trackHealth(at('failing'), attempts({ lastSuccessAt: ago(4 * HOUR), firstFailureAt: FAILING_SINCE }));
    expect(change).toBeNull();
  });

  it('a success at the very instant the failures began recovers nothing; a millisecond later does', () => {
    const at_ = (lastSuccessAt: Date) => trackHealth(at('failing'), attempts({ lastSuccessAt, firstFailureAt: null, failuresSinceSuccess: 0 }));
    expect(at_(FAILING_SINCE)).toBeNull();
    expect(at_(new Date(FAILING_SINCE.getTime() + 1))).toEqual({ to: 'healthy', notice: 'endpoint_recovered' });
  });

  it('a healthy endpoint has nothing to recover from', () => {
    expect(trackHealth(at('healthy'), attempts({ lastSuccessAt: success, firstFailureAt: null, failuresSinceSuccess: 0 }))).toBeNull();
  });
});

describe('supersededBy: the pause takes back the unsent warning of the pause', () => {
  it.each([
    { notice: 'endpoint_paused', takes: ['endpoint_failures_3'] },
    { notice: 'endpoint_failures_3', takes: [] },
    { notice: 'endpoint_failing', takes: [] },
    { notice: 'endpoint_recovered', takes: [] },
  ] as const)('$notice takes back $takes', ({ notice, takes }) => {
    expect(supersededBy(notice)).toEqual(takes);
  });
});
