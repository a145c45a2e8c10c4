import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { TIMELINE_TYPES } from '../../src/domain/timeline.js';
import { seedDemoWorkspace } from '../../src/seed/demo-seed.js';
import { seedOffers } from '../../src/seed/seed.js';
import { recomputeOfferValues } from '../../src/domain/value.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { workspaceWithOwner } from './fixtures.js';

const NOW = new Date('2026-01-15T10:00:00.000Z');
const OFFERS = 3000;
let db: TestDatabase;
const clock = new ManualClock(NOW);
let workspaceId: string;

beforeAll(async () => {
  db = await freshDatabase();
  ({ workspaceId } = await workspaceWithOwner(db.sql, clock, 'seeded'));
  // Small chunks so the run crosses chunk boundaries and runs chunks in parallel.
  await seedOffers(db.sql, { workspaceId, offers: OFFERS, randomSeed: 42, now: NOW, chunkSize: 700, parallel: 3 });
});
afterAll(async () => {
  await db.drop();
});

async function count(query: Promise<{ n: number }[]>): Promise<number> {
  return (await query)[0]!.n;
}

describe('seedOffers', () => {
  it('creates the requested number of offers', async () => {
    expect(await count(db.sql`select count(*)::int as n from offers where workspace_id = ${workspaceId}::uuid`)).toBe(OFFERS);
  });

  it('covers every status, sent offers past their deadline and multi-signer acceptances', async () => {
    const rows = await db.sql<{ kind: string }[]>`
      select distinct case when status = 'sent' and expires_at <= ${NOW} then 'sent_overdue'
                           when status = 'accepted' and signers_required > 1 then 'accepted_multi'
                           else status end as kind
        from offers where workspace_id = ${workspaceId}::uuid`;
    expect(rows.map((r) => r.kind).sort()).toEqual(
      ['accepted', 'accepted_multi', 'declined', 'draft', 'expired', 'sent', 'sent_overdue', 'withdrawn'].sort(),
    );
  });

  it('covers every timeline type', async () => {
    const rows = await db.sql<{ type: string }[]>`select distinct type from offer_events`;
    expect(rows.map((r) => r.type).sort()).toEqual([...TIMELINE_TYPES].sort());
  });

  it('numbers every timeline 1..last_sequence without gaps, in time order, ending at updated_at', async () => {
    const bad = await count(db.sql`
      select count(*)::int as n from offers o
       cross join lateral (select count(*) as entries, max(sequence) as top, min(sequence) as bottom,
                                  max(occurred_at) as latest,
                                  bool_and(occurred_at <= ${NOW}) as past,
                                  bool_and(version is null or version <= o.version) as versions
                             from offer_events e where e.offer_id = o.id) t
       where t.entries <> o.last_sequence or t.top <> o.last_sequence or t.bottom <> 1
          or t.latest <> o.updated_at or not t.past or not t.versions`);
    expect(bad).toBe(0);
    const unordered = await count(db.sql`
      select count(*)::int as n from (
        select occurred_at < lag(occurred_at) over (partition by offer_id order by sequence) as back from offer_events) x
       where back`);
    expect(unordered).toBe(0);
  });

  it('keeps the shape rules of an Offer for drafts, sent, accepted and expired offers', async () => {
    const bad = await count(db.sql`
      select count(*)::int as n from offers o
       where (status = 'draft' and (recipient_email is not null or recipient_name is not null or recipient_company is not null))
          or (status = 'accepted' and (accepted_by_name is null or accepted_by_email is null))
          or (status <> 'accepted' and (accepted_by_name is not null or accepted_by_email is not null))
          or (status = 'expired' and expired_at <> expires_at)
          or (status = 'sent' and first_viewed_version is distinct from version)
          or (status <> 'draft' and sent_at > expires_at)`);
    expect(bad).toBe(0);
  });

  it('matches each offer to its timeline: created, sent, accepted and expired entries agree with the offer', async () => {
    const bad = await count(db.sql`
      select count(*)::int as n from offers o
       where created_at <> (select occurred_at from offer_events where offer_id = o.id and sequence = 1)
          or (select type from offer_events where offer_id = o.id and sequence = 1) <> 'created'
          or sent_at is distinct from (select max(occurred_at) from offer_events where offer_id = o.id and type = 'sent')
          or version is distinct from (select nullif(count(*), 0)::int from offer_events where offer_id = o.id and type = 'sent')
          or accepted_at is distinct from (select max(occurred_at) from offer_events where offer_id = o.id and type = 'accepted')
          or (status = 'expired') <> exists (
               select 1 from offer_events where offer_id = o.id and type = 'expired' and sequence = o.last_sequence
                  and occurred_at = o.expires_at
                  and data->>'expires_at' = api_timestamp(date_trunc('second', o.expires_at)))
          or (status = 'sent' and exists (
               select 1 from offer_events where offer_id = o.id and occurred_at >= o.expires_at))`);
    expect(bad).toBe(0);
  });

  it('gives multi-signer acceptances signed entries 1..n-1 with their fields, then the acceptance', async () => {
    const bad = await count(db.sql`
      select count(*)::int as n from offers o
       where status = 'accepted' and signers_required > 1 and (
         (select array_agg((data->>'signing_order')::int order by sequence) from offer_events
           where offer_id = o.id and type = 'signed') <> (select array_agg(g) from generate_series(1, o.signers_required - 1) g)
         or exists (select 1 from offer_events where offer_id = o.id and type = 'signed'
                     and ((data->>'signer_total')::int <> o.signers_required or data->>'signer_email' is null))
         or (select count(*) from offer_signatures where offer_id = o.id and version = o.version) <> o.signers_required
         or (select data->>'signer_email' from offer_events where offer_id = o.id and type = 'accepted') <> o.accepted_by_email)`);
    expect(bad).toBe(0);
  });

  it('gives section views a section the offer has and a duration', async () => {
    const bad = await count(db.sql`
      select count(*)::int as n from offer_events e
       where type = 'section_viewed'
         and (jsonb_typeof(data->'duration_ms') <> 'number'
              or not exists (select 1 from offer_sections s where s.offer_id = e.offer_id and s.section_id = e.data->>'section_id'))`);
    expect(bad).toBe(0);
  });

  it('stores values that the value rule of value.ts recomputes unchanged, and they vary', async () => {
    const before = await db.sql<{ id: string; value_amount: number }[]>`
      select id, value_amount from offers where workspace_id = ${workspaceId}::uuid order by id`;
    await recomputeOfferValues(db.sql, before.map((row) => row.id));
    const after = await db.sql<{ id: string; value_amount: number }[]>`
      select id, value_amount from offers where workspace_id = ${workspaceId}::uuid order by id`;
    expect(after).toEqual(before);
    expect(new Set(before.map((row) => row.value_amount)).size).toBeGreaterThan(100);
    expect(before.some((row) => row.value_amount === 0)).toBe(true);
  });

  it('puts groups of offers into one created_at millisecond', async () => {
    const largest = await count(db.sql`
      select max(n)::int as n from (select count(*) as n from offers where workspace_id = ${workspaceId}::uuid group by created_at) g`);
    expect(largest).toBeGreaterThanOrEqual(26);
  });

  it('makes the same data for the same seed and different data for another seed', async () => {
    const fingerprint = async (id: string) =>
      (
        await db.sql<{ offers: string; events: string }[]>`
          select (select md5(string_agg(concat_ws('|', title, status, created_at, updated_at, sent_at, expires_at, accepted_at,
                                                  expired_at, version, recipient_email, value_amount, last_sequence), ',' order by id))
                    from offers where workspace_id = ${id}::uuid) as offers,
                 (select md5(string_agg(concat_ws('|', e.sequence, e.type, e.occurred_at, e.version, e.data), ',' order by o.id, e.sequence))
                    from offers o join offer_events e on e.offer_id = o.id where o.workspace_id = ${id}::uuid) as events`
      )[0]!;
    const same = (await workspaceWithOwner(db.sql, clock, 'same')).workspaceId;
    const other = (await workspaceWithOwner(db.sql, clock, 'other')).workspaceId;
    await seedOffers(db.sql, { workspaceId: same, offers: 500, randomSeed: 7, now: NOW });
    await seedOffers(db.sql, { workspaceId: other, offers: 500, randomSeed: 8, now: NOW });
    const third = (await workspaceWithOwner(db.sql, clock, 'third')).workspaceId;
    await seedOffers(db.sql, { workspaceId: third, offers: 500, randomSeed: 7, now: NOW, chunkSize: 123 });
    expect(await fingerprint(third)).toEqual(await fingerprint(same));
    expect((await fingerprint(other)).events).not.toEqual((await fingerprint(same)).events);
  });

  it('refuses to seed a workspace twice with the same seed, and writes nothing more', async () => {
    await expect(seedOffers(db.sql, { workspaceId, offers: 10, randomSeed: 42, now: NOW })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    expect(await count(db.sql`select count(*)::int as n from offers where workspace_id = ${workspaceId}::uuid`)).toBe(OFFERS);
  });

  it('refuses an unknown workspace', async () => {
    await expect(
      seedOffers(db.sql, { workspaceId: '00000000-0000-4000-8000-000000000000', offers: 1, randomSeed: 1, now: NOW }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('seedDemoWorkspace', () => {
  it('creates Demo Agency with 40 offers through the real actions, outbox rows and a working key', async () => {
    const demo = await seedDemoWorkspace(db.sql, clock);
    const [workspace] = await db.sql`select name, timezone, currency from workspaces where id = ${demo.workspaceId}::uuid`;
    expect(workspace).toEqual({ name: 'Demo Agency', timezone: 'Europe/Berlin', currency: 'EUR' });
    const statuses = await db.sql<{ status: string; n: number }[]>`
      select status, count(*)::int as n from offers where workspace_id = ${demo.workspaceId}::uuid group by status order by status`;
    expect(statuses.reduce((sum, row) => sum + row.n, 0)).toBe(40);
    expect(statuses.map((row) => row.status)).toEqual(['accepted', 'draft', 'expired', 'sent', 'withdrawn']);
    const types = await db.sql<{ type: string }[]>`
      select distinct type from webhook_outbox where workspace_id = ${demo.workspaceId}::uuid order by type`;
    expect(types.map((row) => row.type)).toEqual([
      'offer.accepted', 'offer.expired', 'offer.first_viewed', 'offer.sent', 'offer.signed', 'offer.withdrawn',
    ]);
    expect(demo.apiKey).toMatch(/^odk_live_/);
    expect(await count(db.sql`select count(*)::int as n from api_keys where workspace_id = ${demo.workspaceId}::uuid`)).toBe(1);
  });
});
