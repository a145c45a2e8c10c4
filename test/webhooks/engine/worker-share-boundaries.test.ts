import { describe, expect, it } from 'vitest';
import { claimWhenFreeSlots, longestWaitForSlotMs, maxInFlightPerEndpoint } from '../../../src/webhooks/engine/policy.js';

/**
 * The worker's shares (docs/delivery-log.md, `endpoint_cap`; src/webhooks/engine/policy.ts): one endpoint holds at
 * most a quarter of a worker's attempt slots and always at least one, so a slow endpoint does not
 * hold back the others; a worker claims again once all its slots are free; a delivery claimed
 * ahead waits for a slot at most half of what its lease has left past one whole attempt.
 */

describe('attempts in flight per endpoint: a quarter of the worker\'s slots, at least one', () => {
  it.each([
    [0, 1],
    [1, 1],
    [3, 1],
    [4, 1],
    [5, 1],
    [7, 1],
    [8, 2],
    [11, 2],
    [12, 3],
    [64, 16],
  ])('with %i slots, %i', (slots, share) => {
    expect(maxInFlightPerEndpoint(slots)).toBe(share);
  });
});

describe('a worker claims again when all its slots are free, at least one', () => {
  it.each([
    [0, 1],
    [1, 1],
    [2, 2],
    [32, 32],
  ])('with %i slots, at %i free', (slots, free) => {
    expect(claimWhenFreeSlots(slots)).toBe(free);
  });
});

describe('how long a delivery claimed ahead may wait for a slot', () => {
  it.each([
    ['half of what the lease leaves past one attempt', 60_000, 20_000, 20_000],
    ['an odd remainder is halved exactly', 30_001, 30_000, 0.5],
    ['a lease exactly one attempt long leaves no wait', 30_000, 30_000, 0],
    ['a lease shorter than one attempt leaves no wait, never a negative one', 10_000, 30_000, 0],
  ])('%s', (_name, leaseMs, responseTimeoutMs, waitMs) => {
    expect(longestWaitForSlotMs(leaseMs, responseTimeoutMs)).toBe(waitMs);
  });
});
