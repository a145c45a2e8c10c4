import type { Sql } from '../db/connect.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { requireWorkspace } from '../domain/accounts.js';
import { invalidInput } from '../domain/errors.js';
import { requireInteger } from '../domain/validate.js';
import { seedChunk } from './chunk.js';

/**
 * Bulk seeding of realistic offers for demos and benchmarks (`offerdesk seed`). A benchmark
 * seeds 1,000,000 offers with about 10,000,000 timeline entries, so everything is set-based SQL:
 * per chunk of offers, one statement per table, driven by a deterministic PRNG computed in SQL
 * (`hashint8extended(i * 64 + salt, seed)`), so one seed always yields the same data, ids included.
 *
 * Every offer gets a full, consistent lifecycle: the rows obey every CHECK constraint and the
 * shape rules of openapi.yaml "Offer" (a draft has no sent_at, expires_at, version or recipient; an
 * accepted offer has accepted_at and accepted_by; an expired one expired_at), its timeline is
 * 1..last_sequence without gaps in time order, updated_at is its last entry's time, value follows
 * the rule of value.ts (a test recomputes it), and no entry lies after `now`.
 *
 * Mix: draft, sent with an open deadline, sent past its deadline (the job has not run yet),
 * accepted by one signer, accepted by several signers (signed entries, then accepted), expired,
 * withdrawn, and a few declined (openapi.yaml "Offer states" describes no move into declined; the rows exist so the status
 * filter can be exercised). Every timeline type appears. One offer in ten belongs to a group of 40
 * created in the same millisecond, for keyset pagination's tie-break on id.
 *
 * Seeded history writes no webhook outbox rows: these events happened before anyone subscribed.
 *
 * The SQL is in plan.ts (one row per offer: its kind, counts and times, each drawn from a named
 * `*_roll` column) and chunk.ts (the timeline and the rows of every table, from that plan).
 */

export interface SeedOffersInput {
  workspaceId: string;
  offers: number;
  /** Same seed, same workspace: same data. Seeding a workspace twice needs two seeds. */
  randomSeed: number;
  /** No seeded entry lies after this time; open deadlines lie after it. */
  now: Date;
  /** Offers per transaction (one statement per table each). */
  chunkSize?: number;
  /** Chunks seeded at once, each on its own connection (the pool must allow that many). */
  parallel?: number;
  onProgress?: (progress: SeedProgress) => void;
}

export interface SeedProgress {
  offers: number;
  events: number;
  total: number;
}

export const MAX_SEED_OFFERS = 10_000_000;
export const DEFAULT_SEED_CHUNK = 25_000;
export const DEFAULT_SEED_PARALLEL = 4;

export async function seedOffers(sql: Sql, input: SeedOffersInput): Promise<{ offers: number; events: number }> {
  const total = requireInteger(input.offers, 'offers', 1, MAX_SEED_OFFERS);
  const seed = requireInteger(input.randomSeed, 'random seed', 0, 2_147_483_647);
  const chunk = requireInteger(input.chunkSize ?? DEFAULT_SEED_CHUNK, 'chunk size', 1, 1_000_000);
  const parallel = requireInteger(input.parallel ?? DEFAULT_SEED_PARALLEL, 'parallel', 1, 32);
  const workspace = await requireWorkspace(sql, input.workspaceId);
  const starts = Array.from({ length: Math.ceil(total / chunk) }, (_, k) => k * chunk);
  let offers = 0;
  let events = 0;
  let failure: unknown;
  // Chunks touch disjoint rows, so they run side by side on several connections of the pool.
  const worker = async (): Promise<void> => {
    for (let from = starts.shift(); from !== undefined && failure === undefined; from = starts.shift()) {
      const to = Math.min(total, from + chunk);
      let seeded: number;
      try {
        seeded = (await sql.begin((tx) => seedChunk(tx, { workspaceId: workspace.id, seed, from, to, now: input.now }))) as number;
      } catch (error) {
        failure ??= error;
        return;
      }
      events += seeded;
      offers += to - from;
      input.onProgress?.({ offers, events, total });
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, starts.length) }, worker));
  if (failure !== undefined) {
    if (isUniqueViolation(failure, 'offers_pkey')) {
      throw invalidInput(`workspace ${workspace.id} already holds offers of random seed ${seed}; use another --random-seed`);
    }
    throw failure;
  }
  return { offers: total, events };
}
