import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DEMO_HISTORY_OFFERS, DEMO_OFFERS, seedDemoWorkspace } from '../../src/seed/demo-seed.js';
import { OFFER_STATUSES } from '../../src/domain/offer-state.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

/**
 * The demo workspace as `npm start` seeds it (with history) must let every README example be
 * tried: paging by status at limit=10 and timelines at limit=5.
 */

const README_OFFERS_LIMIT = 10;
const README_EVENTS_LIMIT = 5;
const PAGES = 3;

let db: TestDatabase;
let workspaceId: string;

beforeAll(async () => {
  db = await freshDatabase();
  ({ workspaceId } = await seedDemoWorkspace(db.sql, new ManualClock('2026-11-20T10:00:00.000Z'), { historyOffers: DEMO_HISTORY_OFFERS }));
}, 120_000);
afterAll(async () => {
  await db.drop();
});

describe('the demo workspace with history', () => {
  it('holds the 40 acted offers and the history', async () => {
    const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from offers where workspace_id = ${workspaceId}::uuid`;
    expect(row!.n).toBe(DEMO_OFFERS + DEMO_HISTORY_OFFERS);
  });

  it.each(OFFER_STATUSES)('has at least three pages of %s offers at limit=10', async (status) => {
    const [row] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from offers where workspace_id = ${workspaceId}::uuid and status = ${status}`;
    expect(row!.n).toBeGreaterThan((PAGES - 1) * README_OFFERS_LIMIT);
  });

  it('has many timelines longer than one page at limit=5, among them offers acted on by hand', async () => {
    const rows = await db.sql<{ outboxed: boolean; n: number }[]>`
      select exists (select 1 from webhook_outbox w where w.offer_id = o.id) as outboxed, count(*)::int as n
        from offers o
       where o.workspace_id = ${workspaceId}::uuid and o.last_sequence > ${README_EVENTS_LIMIT}
       group by 1 order by 1`;
    expect(rows.map((r) => r.outboxed)).toEqual([false, true]);
    expect(rows.every((r) => r.n >= 10)).toBe(true);
  });

  it('writes no webhook outbox rows for the history', async () => {
    const [row] = await db.sql<{ n: number }[]>`
      select count(distinct offer_id)::int as n from webhook_outbox where workspace_id = ${workspaceId}::uuid`;
    expect(row!.n).toBeLessThanOrEqual(DEMO_OFFERS);
  });
});
