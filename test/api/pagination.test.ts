import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOffer, sendOffer, viewOffer } from '../../src/domain/offer-actions.js';
import { readOfferPage } from '../../src/read-model/offers.js';
import { overduePageIds } from '../../src/read-model/overdue-page.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

let api: TestApi;
let ws: WorkspaceFixture;

/** Offers inserted in bulk: `count` rows, many sharing one millisecond. */
async function bulkOffers(workspaceId: string, count: number, sameMillisecondEvery: number) {
  await api.db.sql`
    insert into offers (workspace_id, title, status, created_at, updated_at, currency)
    select ${workspaceId}::uuid, 'Bulk offer ' || i, 'draft',
           timestamptz '2026-01-01 00:00:00+00' + (i / ${sameMillisecondEvery}) * interval '1 millisecond',
           timestamptz '2026-01-01 00:00:00+00', 'EUR'
    from generate_series(1, ${count}) as i`;
}

async function walk(path: string, key: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = `${api.baseUrl}${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await get(url, key);
    expect(res.status).toBe(200);
    const body: { data: { id?: string; sequence?: number }[]; next_cursor: string | null } = await res.json();
    pages += 1;
    ids.push(...body.data.map((row) => row.id ?? String(row.sequence)));
    cursor = body.next_cursor;
    if (cursor !== null) expect(cursor.length).toBeLessThanOrEqual(512);
  } while (cursor !== null);
  return { ids, pages };
}

beforeAll(async () => {
  api = await startTestApi({ env: { RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_PER_IP: '100000' } });
  ws = await workspaceWithKey(api.db.sql, api.clock);
  await bulkOffers(ws.workspaceId, 1000, 250);
});
afterAll(async () => api.close());

describe('keyset pagination of GET /offers', () => {
  it('walks every offer exactly once in created_at desc, id desc order, even when hundreds share a millisecond', async () => {
    const expected = await api.db.sql<{ id: string }[]>`
      select id from offers where workspace_id = ${ws.workspaceId}::uuid order by created_at desc, id desc`;
    const { ids, pages } = await walk('/offers', ws.key, 7);
    expect(ids).toEqual(expected.map((row) => row.id));
    expect(pages).toBe(Math.ceil(1000 / 7));
  });

  it('the last page has next_cursor null and a page that ends exactly at the end too', async () => {
    const { pages } = await walk('/offers', ws.key, 100);
    expect(pages).toBe(10);
  });

  it('an empty list is data [] with next_cursor null', async () => {
    const empty = await workspaceWithKey(api.db.sql, api.clock);
    const res = await get(api.baseUrl + '/offers', empty.key);
    expect(await res.json()).toEqual({ data: [], next_cursor: null });
  });

  it('stays stable while new offers are created during the walk', async () => {
    const fresh = await workspaceWithKey(api.db.sql, api.clock);
    await bulkOffers(fresh.workspaceId, 60, 3);
    const before = await api.db.sql<{ id: string }[]>`
      select id from offers where workspace_id = ${fresh.workspaceId}::uuid order by created_at desc, id desc`;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `${api.baseUrl}/offers?limit=10${cursor ? `&cursor=${cursor}` : ''}`;
      const body: { data: { id: string }[]; next_cursor: string | null } = await (await get(url, fresh.key)).json();
      seen.push(...body.data.map((o) => o.id));
      cursor = body.next_cursor;
      api.clock.advance(5);
      await createOffer(api.db.sql, api.clock, { workspaceId: fresh.workspaceId, title: 'Created mid-walk' });
    } while (cursor !== null);
    expect(seen).toEqual(before.map((row) => row.id));
  });

  it('the status filter paginates too and agrees with the statuses', async () => {
    const { ids } = await walk('/offers?status=draft', ws.key, 33);
    expect(ids).toHaveLength(1000);
  });
});

describe('status filters across pages', () => {
  it('status=sent and status=expired walk exactly the offers each status reports, across cursors', async () => {
    const mixed = await workspaceWithKey(api.db.sql, api.clock);
    await api.db.sql`
      insert into offers (workspace_id, title, status, created_at, updated_at, sent_at, expires_at, expired_at, version, currency)
      select ${mixed.workspaceId}::uuid, 'Mixed ' || i,
             case when i % 7 = 0 then 'expired' else 'sent' end,
             timestamptz '2026-01-01 00:00:00+00' + (i / 3) * interval '1 millisecond',
             timestamptz '2026-01-01 00:00:00+00', timestamptz '2026-01-01 00:00:00+00',
             case when i % 2 = 0 then timestamptz '2026-02-01 00:00:00+00' else timestamptz '2099-01-01 00:00:00+00' end,
             case when i % 7 = 0 then timestamptz '2026-02-01 00:00:00+00' end,
             1, 'EUR'
      from generate_series(1, 90) as i`;
    const now = api.clock.now();
    const expected = async (status: 'sent' | 'expired') =>
      (
        await api.db.sql<{ id: string }[]>`
          select id from offers
           where workspace_id = ${mixed.workspaceId}::uuid
             and case when status = 'sent' and expires_at <= ${now} then 'expired' else status end = ${status}
           order by created_at desc, id desc`
      ).map((row) => row.id);
    for (const status of ['sent', 'expired'] as const) {
      const want = await expected(status);
      expect(want.length).toBeGreaterThan(10);
      expect((await walk(`/offers?status=${status}`, mixed.key, 4)).ids).toEqual(want);
    }
  });
});

describe('deadlines in another order than creation', () => {
  it('status=expired lists overdue offers newest first whatever the order of their deadlines', async () => {
    const spread = await workspaceWithKey(api.db.sql, api.clock);
    const now = api.clock.now();
    // Created an hour apart over 120 hours, each due 1 to 97 days after its creation (a gap that
    // jumps around), so the latest deadlines are not the newest offers.
    await api.db.sql`
      insert into offers (workspace_id, title, status, created_at, updated_at, sent_at, expires_at, version, currency)
      select ${spread.workspaceId}::uuid, 'Spread ' || i, 'sent',
             ${now}::timestamptz - interval '60 days' + i * interval '1 hour',
             ${now}::timestamptz - interval '60 days' + i * interval '1 hour',
             ${now}::timestamptz - interval '60 days' + i * interval '1 hour',
             ${now}::timestamptz - interval '60 days' + i * interval '1 hour' + ((i * 37) % 97 + 1) * interval '1 day',
             1, 'EUR'
      from generate_series(1, 120) as i`;
    const expected = async (status: 'sent' | 'expired') =>
      (
        await api.db.sql<{ id: string }[]>`
          select id from offers
           where workspace_id = ${spread.workspaceId}::uuid
             and case when status = 'sent' and expires_at <= ${now} then 'expired' else status end = ${status}
           order by created_at desc, id desc`
      ).map((row) => row.id);
    for (const status of ['sent', 'expired'] as const) {
      const want = await expected(status);
      expect(want.length).toBeGreaterThan(20);
      for (const limit of [1, 3, 25]) expect((await walk(`/offers?status=${status}`, spread.key, limit)).ids).toEqual(want);
    }
  });

  it('status=expired pages exactly right among offers not yet due, with deadlines on both sides of week boundaries and of now', async () => {
    const mixed = await workspaceWithKey(api.db.sql, api.clock);
    const now = api.clock.now();
    // Two offers per creation time (the id decides), one a day over 200 days; each due 0 to 60
    // days and some hours after its creation, so the newest 60 days mix overdue offers with
    // offers not yet due, and the deadlines of many offers fall in the current week.
    await api.db.sql`
      insert into offers (workspace_id, title, status, created_at, updated_at, sent_at, expires_at, expired_at, version, currency)
      select ${mixed.workspaceId}::uuid, 'Due ' || i,
             case when i % 11 = 0 then 'expired' when i % 13 = 0 then 'withdrawn' else 'sent' end,
             ${now}::timestamptz - interval '200 days' + (i / 2) * interval '1 day',
             ${now}::timestamptz - interval '200 days' + (i / 2) * interval '1 day',
             ${now}::timestamptz - interval '200 days' + (i / 2) * interval '1 day',
             ${now}::timestamptz - interval '200 days' + (i / 2) * interval '1 day'
               + ((i * 37) % 61) * interval '1 day' + ((i * 11) % 24) * interval '1 hour',
             case when i % 11 = 0 then ${now}::timestamptz - interval '200 days' + (i / 2) * interval '1 day' end,
             1, 'EUR'
      from generate_series(1, 400) as i`;
    // Deadlines exactly at now, just after it, at the start of the current deadline week and just
    // before it, and one long-running offer created first and due an hour ago.
    await api.db.sql`
      insert into offers (workspace_id, title, status, created_at, updated_at, sent_at, expires_at, version, currency)
      select ${mixed.workspaceId}::uuid, 'Edge ' || e.n, 'sent', e.created, e.created, e.created, e.due, 1, 'EUR'
        from (values
          (1, ${now}::timestamptz - interval '3 days', ${now}::timestamptz),
          (2, ${now}::timestamptz - interval '3 days', ${now}::timestamptz + interval '1 millisecond'),
          (3, ${now}::timestamptz - interval '10 days',
              date_bin(interval '7 days', ${now}::timestamptz, timestamptz '2000-01-03 00:00:00+00')),
          (4, ${now}::timestamptz - interval '10 days',
              date_bin(interval '7 days', ${now}::timestamptz, timestamptz '2000-01-03 00:00:00+00') - interval '1 millisecond'),
          (5, ${now}::timestamptz - interval '400 days', ${now}::timestamptz - interval '1 hour')
        ) as e(n, created, due)`;
    const expected = async (status: 'sent' | 'expired') =>
      (
        await api.db.sql<{ id: string }[]>`
          select id from offers
           where workspace_id = ${mixed.workspaceId}::uuid
             and case when status = 'sent' and expires_at <= ${now} then 'expired' else status end = ${status}
           order by created_at desc, id desc`
      ).map((row) => row.id);
    for (const status of ['sent', 'expired'] as const) {
      const want = await expected(status);
      expect(want.length).toBeGreaterThan(40);
      for (const limit of [1, 4, 25]) expect((await walk(`/offers?status=${status}`, mixed.key, limit)).ids).toEqual(want);
    }
  });
});

interface PlanNode {
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

describe('cost does not grow with depth', () => {
  it('the overdue page reads each ended deadline week from the week index, whose key it repeats exactly', async () => {
    // The planner uses an expression index only for the very same expression: a change to one
    // side alone leaves every page right but walks the sent offers again.
    const plan = await api.db.sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      const [row] = await tx`explain (format json) ${overduePageIds(tx, {
        workspace: tx`${ws.workspaceId}::uuid`,
        after: false,
        afterCreatedAt: '',
        beyond: () => tx``,
        take: 26,
        now: api.clock.now(),
      })}`;
      return (row as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
    });
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
    const weekScans = nodes(plan).filter((node) => node['Index Name'] === 'offers_sent_deadline_week_list_idx');
    expect(weekScans.map((node) => node['Index Cond'])).toContainEqual(expect.stringContaining('date_bin'));
  });

  it('page 1 and a deep page touch about the same number of buffers, using the list index', async () => {
    const explain = async (after: { createdAt: string; id: string } | null) => {
      const sqlText = after
        ? api.db.sql`explain (analyze, buffers, format json)
            select id from offers o where o.workspace_id = ${ws.workspaceId}::uuid
              and (o.created_at, o.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)
            order by o.created_at desc, o.id desc limit 26`
        : api.db.sql`explain (analyze, buffers, format json)
            select id from offers o where o.workspace_id = ${ws.workspaceId}::uuid
            order by o.created_at desc, o.id desc limit 26`;
      const [row] = await sqlText;
      return (row as { 'QUERY PLAN': { Plan: Record<string, unknown> }[] })['QUERY PLAN'][0]!.Plan;
    };
    const deepPage = (await readOfferPage(api.db.sql, { workspaceId: ws.workspaceId }, { status: null, after: null, limit: 950, now: api.clock.now() }))!.value;
    const first = await explain(null);
    const deep = await explain(deepPage.next);
    const text = JSON.stringify(deep);
    expect(text).toContain('offers_list_idx');
    expect(text).not.toContain('"Sort"');
    const buffers = (plan: Record<string, unknown>) => Number(plan['Shared Hit Blocks'] ?? 0) + Number(plan['Shared Read Blocks'] ?? 0);
    expect(buffers(deep)).toBeLessThanOrEqual(buffers(first) + 5);
  });
});

describe('timeline pagination', () => {
  it('walks an offer\'s timeline by sequence, oldest first, 1..n without gaps', async () => {
    const { id } = await createOffer(api.db.sql, api.clock, { workspaceId: ws.workspaceId, title: 'Busy offer' });
    await sendOffer(api.db.sql, api.clock, { offerId: id, recipientEmail: 'r@client.example', expiresAt: new Date('2027-01-01T00:00:00Z') });
    for (let i = 0; i < 120; i++) await viewOffer(api.db.sql, api.clock, { offerId: id });
    const { ids } = await walk(`/offers/${id}/events`, ws.key, 50);
    expect(ids).toEqual(Array.from({ length: 122 }, (_, i) => String(i + 1)));
    const page = await (await get(`${api.baseUrl}/offers/${id}/events`, ws.key)).json();
    expect(page.data).toHaveLength(50);
    expect(page.data[0]).toEqual({ sequence: 1, type: 'created', occurred_at: expect.any(String), version: null, data: {} });
    expect(page.data[1]).toMatchObject({ sequence: 2, type: 'sent', version: 1, data: { recipient_email: 'r@client.example' } });
  });

  it('an offer without further entries pages to next_cursor null', async () => {
    const { id } = await createOffer(api.db.sql, api.clock, { workspaceId: ws.workspaceId, title: 'Quiet offer' });
    const body = await (await get(`${api.baseUrl}/offers/${id}/events?limit=1`, ws.key)).json();
    expect(body).toEqual({ data: [expect.objectContaining({ sequence: 1 })], next_cursor: null });
  });
});
