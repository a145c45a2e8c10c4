/**
 * The tests' one random source: a small seeded PRNG (mulberry32), so a run that failed on a
 * picked value can be repeated. The seed is printed once per test file; set TEST_SEED to it to
 * get the same values again.
 */
function chooseSeed(): number {
  const given = process.env.TEST_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`TEST_SEED must be a whole number, got "${given}"`);
    return seed >>> 0;
  }
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

export const TEST_SEED = chooseSeed();
console.log(`test random seed ${TEST_SEED} (TEST_SEED=${TEST_SEED} repeats it)`);

let state = TEST_SEED;

/** A float in [0, 1), as Math.random. */
export function random(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** A whole number from `min` to `max`, both included. */
export function randomInt(min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** `length` lowercase letters and digits, for names that must not collide. */
export function randomTag(length = 8): string {
  let tag = '';
  while (tag.length < length) tag += randomInt(0, 35).toString(36);
  return tag;
}
