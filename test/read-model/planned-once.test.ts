import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { readOfferEventPage, readOfferPage } from '../../src/read-model/offers.js';
import { seedOffers } from '../../src/seed/seed.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { workspace } from '../support/builders.js';

/**
 * The API's reads are planned once per connection and statement (src/read-model/planned-once.ts):
 * after PostgreSQL's five plans for the values at hand, it keeps one plan for any values.
 * pg_prepared_statements counts, per statement of the session, the plans of either kind.
 */
describe('the API reads keep one plan', () => {
  let db: TestDatabase;
  let workspaceId: string;
  let offerId: string;
  beforeAll(async () => {
    db = await freshDatabase();
    ({ workspaceId } = await workspace(db.sql, systemClock));
    // Enough offers that the planner's estimate of an unknown row count is far from a page.
    await seedOffers(db.sql, { workspaceId, offers: 50_000, randomSeed: 7, now: new Date() });
    await db.sql`analyze offers, offer_events`;
    const [first] = await db.sql<{ id: string }[]>`select id from offers where workspace_id = ${workspaceId} limit 1`;
    offerId = first!.id;
  }, 120_000);
  afterAll(async () => {
    await db.drop();
  });

  /**
   * Runs `read` ten times on one connection and gives, for each statement it ran there, the
   * plans made during those ten runs.
   */
  async function plansOf(read: (sql: TestDatabase['sql']) => Promise<unknown>) {
    const connection = await db.sql.reserve();
    const plans = () => connection<{ statement: string; generic_plans: number; custom_plans: number }[]>`
      select statement, generic_plans::int, custom_plans::int from pg_prepared_statements`;
    try {
      const before = new Map((await plans()).map((p) => [p.statement, p]));
      for (let i = 0; i < 10; i++) await read(connection as unknown as TestDatabase['sql']);
      return (await plans())
        .map((p) => ({
          statement: p.statement,
          generic: p.generic_plans - (before.get(p.statement)?.generic_plans ?? 0),
          custom: p.custom_plans - (before.get(p.statement)?.custom_plans ?? 0),
        }))
        .filter((p) => p.generic + p.custom > 0 && !p.statement.includes('pg_prepared_statements'));
    } finally {
      connection.release();
    }
  }

  it.each([null, 'draft', 'sent', 'expired'] as const)('a page of offers (status %s), first and from a cursor', async (status) => {
    const now = new Date();
    const first = await readOfferPage(db.sql, { workspaceId }, { status, after: null, limit: 20, now });
    const after = first!.value.next;
    expect(after).not.toBeNull();
    for (const from of [null, after]) {
      const plans = await plansOf((sql) => readOfferPage(sql, { workspaceId }, { status, after: from, limit: 20, now }));
      expect(plans.map(({ generic, custom }) => ({ generic, custom }))).toEqual([{ generic: 5, custom: 5 }]);
    }
  });

  it('walks pages of every size with a few statements, each page exactly its size', async () => {
    const connection = await db.sql.reserve();
    const statements = () => connection<{ n: number }[]>`
      select count(*)::int as n from pg_prepared_statements where statement like '%limit%' and statement like '%from offers%'`;
    try {
      const [before] = await statements();
      const now = new Date();
      const page = (limit: number, after: Parameters<typeof readOfferPage>[2]['after']) =>
        readOfferPage(connection as unknown as TestDatabase['sql'], { workspaceId }, { status: null, after, limit, now });
      for (let limit = 1; limit <= 100; limit++) {
        const first = await page(limit, null);
        const second = await page(limit, first!.value.next);
        expect(first!.value.offers).toHaveLength(limit);
        expect(second!.value.offers).toHaveLength(limit);
        // The second page starts right after the first.
        const span = Math.min(2 * limit, 100);
        const both = await page(span, null);
        expect(both!.value.offers.map((o) => o.id)).toEqual([...first!.value.offers, ...second!.value.offers].slice(0, span).map((o) => o.id));
      }
      const [after] = await statements();
      // First pages and pages from a cursor, each in a few row counts (planned-once.ts).
      expect(after!.n - before!.n).toBeLessThanOrEqual(10);
    } finally {
      connection.release();
    }
  }, 60_000);

  it('a page of an offer timeline (kept with its row count a parameter: a lookup by offer, priced alike either way)', async () => {
    const plans = await plansOf((sql) => readOfferEventPage(sql, { workspaceId }, { offerId, afterSequence: 0, limit: 50, now: new Date() }));
    expect(plans.map(({ generic, custom }) => ({ generic, custom }))).toEqual([{ generic: 5, custom: 5 }]);
  });
});
