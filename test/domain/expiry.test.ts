import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { DAY, ManualClock, MINUTE } from '../../src/clock.js';
import { connect, type Sql } from '../../src/db/connect.js';
import { createOffer, expireDueOffers, expireOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { offerIn, offerRow, outbox, timeline, workspaceWithOwner } from './fixtures.js';

let db: TestDatabase;
const clock = new ManualClock();
const START = new Date('2026-01-15T10:00:00.000Z');
let workspaceId: string;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});
// A fresh workspace per test, and everything due expired before it starts, so counts are exact.
beforeEach(async () => {
  clock.set(START);
  ({ workspaceId } = await workspaceWithOwner(db.sql, clock));
  await expireDueOffers(db.sql, clock);
});

/** A sent offer with the given deadline, sent a day before it (or now, if that is earlier). */
async function sentUntil(expiresAt: Date): Promise<string> {
  const sentAt = new Date(Math.min(expiresAt.getTime() - DAY, clock.now().getTime()));
  const { id } = await createOffer(db.sql, clock, { workspaceId, title: 'Due', at: sentAt });
  await sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'r@c.test', expiresAt, at: sentAt });
  return id;
}

it('the job expires a sent offer past its deadline: expired_at and the entry are dated at the deadline', async () => {
  const deadline = new Date('2026-01-14T08:30:15.789Z');
  const id = await sentUntil(deadline);
  expect(await expireDueOffers(db.sql, clock)).toBe(1);
  const offer = await offerRow(db.sql, id);
  expect(offer.status).toBe('expired');
  expect(offer.expired_at).toEqual(deadline);
  expect(offer.updated_at).toEqual(deadline);
  expect((await timeline(db.sql, id)).at(-1)).toEqual({
    sequence: 3,
    type: 'expired',
    occurred_at: deadline,
    version: 1,
    data: { expires_at: '2026-01-14T08:30:15.000Z' },
  });
});

it('offer.expired is dispatchable two minutes after detection', async () => {
  const deadline = new Date('2026-01-14T08:30:15.789Z');
  const id = await sentUntil(deadline);
  await expireDueOffers(db.sql, clock);
  expect((await outbox(db.sql, id)).at(-1)).toEqual({
    type: 'offer.expired',
    offer_sequence: 3,
    occurred_at: deadline,
    created_at: START,
    available_at: new Date(START.getTime() + 2 * MINUTE),
  });
});

it('an offer whose deadline is exactly now expires; one a millisecond later does not', async () => {
  const due = await sentUntil(START);
  const notDue = await sentUntil(new Date(START.getTime() + 1));
  expect(await expireDueOffers(db.sql, clock)).toBe(1);
  expect((await offerRow(db.sql, due)).status).toBe('expired');
  expect((await offerRow(db.sql, notDue)).status).toBe('sent');
});

it('drafts and settled offers are left alone by the job', async () => {
  const ids = await Promise.all(
    (['draft', 'accepted', 'withdrawn', 'declined'] as const).map((state) => offerIn(db.sql, clock, workspaceId, state)),
  );
  expect(await expireDueOffers(db.sql, clock)).toBe(0);
  for (const id of ids) expect((await timeline(db.sql, id)).at(-1)!.type).not.toBe('expired');
});

it('limit caps the offers one run expires, and the next run takes the rest', async () => {
  for (let i = 0; i < 5; i++) await sentUntil(new Date(START.getTime() - (i + 1) * MINUTE));
  expect(await expireDueOffers(db.sql, clock, { limit: 3 })).toBe(3);
  expect(await expireDueOffers(db.sql, clock)).toBe(2);
  expect(await expireDueOffers(db.sql, clock)).toBe(0);
});

it('two runs at once expire each offer exactly once', async () => {
  const count = 1200;
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    ids.push(...(await Promise.all(Array.from({ length: 50 }, (_, k) => sentUntil(new Date(START.getTime() - (i + k + 1) * 1000))))));
  }
  // Two pools, so the runs really hold separate connections and race for the same rows.
  const other: Sql = connect(db.url, { max: 2 });
  try {
    const [a, b] = await Promise.all([expireDueOffers(db.sql, clock), expireDueOffers(other, clock)]);
    expect(a + b).toBe(count);
  } finally {
    await other.end();
  }
  const [stats] = await db.sql<{ entries: number; offers: number; outbox: number }[]>`
    select (select count(*)::int from offer_events where offer_id = any(${ids}::uuid[]) and type = 'expired') as entries,
           (select count(*)::int from offers where id = any(${ids}::uuid[]) and status = 'expired') as offers,
           (select count(*)::int from webhook_outbox where offer_id = any(${ids}::uuid[]) and type = 'offer.expired') as outbox`;
  expect(stats).toEqual({ entries: count, offers: count, outbox: count });
});

it('expireOffer expires one due offer the same way', async () => {
  const deadline = new Date('2026-01-10T00:00:00.123Z');
  const id = await sentUntil(deadline);
  await expireOffer(db.sql, clock, { offerId: id });
  expect(await offerRow(db.sql, id)).toMatchObject({ status: 'expired', expired_at: deadline });
  expect((await timeline(db.sql, id)).at(-1)!.data).toEqual({ expires_at: '2026-01-10T00:00:00.000Z' });
  expect((await outbox(db.sql, id)).map((row) => row.type)).toEqual(['offer.sent', 'offer.expired']);
});

it('expireOffer refuses an offer whose deadline has not passed at at', async () => {
  const id = await sentUntil(new Date(START.getTime() - DAY));
  await expect(expireOffer(db.sql, clock, { offerId: id, at: new Date(START.getTime() - 2 * DAY) })).rejects.toMatchObject({
    code: 'invalid_transition',
  });
});
