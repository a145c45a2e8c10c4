import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptOffer,
  createOffer,
  expireDueOffers,
  sendOffer,
  viewOffer,
  withdrawOffer,
} from '../../src/domain/offer-actions.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

const OFFER_FIELDS = [
  'id', 'title', 'status', 'created_at', 'updated_at', 'sent_at', 'expires_at', 'accepted_at',
  'expired_at', 'version', 'recipient', 'accepted_by', 'value',
].sort();
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let api: TestApi;
let ws: WorkspaceFixture;
let other: WorkspaceFixture;
const ids: Record<'draft' | 'sent' | 'accepted' | 'withdrawn' | 'overdue' | 'foreign', string> = {
  draft: '', sent: '', accepted: '', withdrawn: '', overdue: '', foreign: '',
};

const pricing = [
  { id: 'intro', kind: 'text' as const, title: 'Introduction', body: 'Secret proposal text for the client' },
  { id: 'hidden-prices', kind: 'pricing' as const, visible: false, packages: [{ name: 'Hidden', amount: 999_00, recommended: true }] },
  {
    id: 'prices',
    kind: 'pricing' as const,
    packages: [
      { name: 'Basic', amount: 4_900_00 },
      { name: 'Pro', amount: 12_500_00, recommended: true },
    ],
  },
];

beforeAll(async () => {
  api = await startTestApi();
  const { sql } = api.db;
  const clock = api.clock;
  ws = await workspaceWithKey(sql, clock, { currency: 'EUR' });
  other = await workspaceWithKey(sql, clock, { currency: 'USD' });
  const deadline = new Date('2026-03-10T12:00:00.000Z');

  ids.draft = (await createOffer(sql, clock, { workspaceId: ws.workspaceId, title: 'Draft for Acme', sections: pricing })).id;
  clock.advance(1);
  ids.sent = (await createOffer(sql, clock, { workspaceId: ws.workspaceId, title: 'Sent to Globex' })).id;
  await sendOffer(sql, clock, { offerId: ids.sent, recipientEmail: 'hank@globex.example', recipientName: 'Hank Scorpio', recipientCompany: 'Globex', expiresAt: new Date('2026-12-01T00:00:00Z'), message: 'private note to recipient' });
  await viewOffer(sql, clock, { offerId: ids.sent, ip: '203.0.113.50', userAgent: 'Mozilla/5.0 SecretBrowser' });
  clock.advance(1);
  ids.accepted = (await createOffer(sql, clock, { workspaceId: ws.workspaceId, title: 'Accepted by Initech' })).id;
  await sendOffer(sql, clock, { offerId: ids.accepted, recipientEmail: 'bill@initech.example', expiresAt: new Date('2026-12-01T00:00:00Z') });
  await acceptOffer(sql, clock, { offerId: ids.accepted, signerName: 'Bill Lumbergh', signerEmail: 'bill@initech.example' });
  clock.advance(1);
  ids.withdrawn = (await createOffer(sql, clock, { workspaceId: ws.workspaceId, title: 'Withdrawn' })).id;
  await sendOffer(sql, clock, { offerId: ids.withdrawn, recipientEmail: 'x@y.example', expiresAt: new Date('2026-12-01T00:00:00Z') });
  await withdrawOffer(sql, clock, { offerId: ids.withdrawn });
  clock.advance(1);
  ids.overdue = (await createOffer(sql, clock, { workspaceId: ws.workspaceId, title: 'Deadline passes' })).id;
  await sendOffer(sql, clock, { offerId: ids.overdue, recipientEmail: 'late@client.example', expiresAt: deadline });
  ids.foreign = (await createOffer(sql, clock, { workspaceId: other.workspaceId, title: 'Other workspace offer' })).id;
});
afterAll(async () => api.close());

const read = async (path: string, key = ws.key) => {
  const res = await get(api.baseUrl + path, key);
  return { status: res.status, body: await res.json() };
};

describe('Offer fields (openapi.yaml "Offer")', () => {
  it('every field is always present, also on a draft, with nulls where the contract says', async () => {
    const { body } = await read(`/offers/${ids.draft}`);
    expect(Object.keys(body.data).sort()).toEqual(OFFER_FIELDS);
    expect(body.data).toMatchObject({
      status: 'draft', sent_at: null, expires_at: null, accepted_at: null, expired_at: null, version: null,
      recipient: { name: null, company: null, email: null }, accepted_by: null,
    });
  });

  it('value is the recommended package of the first visible pricing section', async () => {
    const { body } = await read(`/offers/${ids.draft}`);
    expect(body.data.value).toEqual({ amount: 12_500_00, currency: 'EUR' });
  });

  it('a sent offer carries recipient, version and its dates', async () => {
    const { body } = await read(`/offers/${ids.sent}`);
    expect(body.data).toMatchObject({
      status: 'sent', version: 1, expires_at: '2026-12-01T00:00:00.000Z',
      recipient: { name: 'Hank Scorpio', company: 'Globex', email: 'hank@globex.example' },
      value: { amount: 0, currency: 'EUR' },
    });
    expect(body.data.sent_at).toMatch(TIMESTAMP);
  });

  it('an accepted offer carries accepted_at and accepted_by', async () => {
    const { body } = await read(`/offers/${ids.accepted}`);
    expect(body.data.status).toBe('accepted');
    expect(body.data.accepted_at).toMatch(TIMESTAMP);
    expect(body.data.accepted_by).toEqual({ name: 'Bill Lumbergh', email: 'bill@initech.example' });
  });

  it('nothing the API never returns appears in any body', async () => {
    const bodies = JSON.stringify([
      await read('/offers?limit=100'),
      ...(await Promise.all(Object.values(ids).map((id) => read(`/offers/${id}`)))),
      ...(await Promise.all(Object.values(ids).map((id) => read(`/offers/${id}/events?limit=200`)))),
    ]);
    const [row] = await api.db.sql<{ public_token: string }[]>`select public_token from offers where id = ${ids.sent}::uuid`;
    const publicToken = row!.public_token;
    for (const secret of [publicToken, '203.0.113.50', 'SecretBrowser', 'private note', 'Secret proposal text', 'Hidden', 'Basic', 'Other workspace offer', other.workspaceId]) {
      expect(bodies).not.toContain(secret);
    }
  });
});

describe('reporting rules (openapi.yaml "Offer states")', () => {
  it('a sent offer past expires_at reads expired, with expired_at, before and after the expiry job', async () => {
    api.clock.set('2026-03-10T11:59:59.999Z');
    expect((await read(`/offers/${ids.overdue}`)).body.data).toMatchObject({ status: 'sent', expired_at: null });
    expect((await read('/offers?status=sent')).body.data.map((o: { id: string }) => o.id)).toContain(ids.overdue);

    api.clock.set('2026-03-10T12:00:00.000Z');
    const before = (await read(`/offers/${ids.overdue}`)).body.data;
    expect(before).toMatchObject({ status: 'expired', expired_at: '2026-03-10T12:00:00.000Z' });
    expect((await read('/offers?status=sent')).body.data.map((o: { id: string }) => o.id)).not.toContain(ids.overdue);
    expect((await read('/offers?status=expired')).body.data.map((o: { id: string }) => o.id)).toEqual([ids.overdue]);

    api.clock.set('2026-03-10T12:15:00.000Z');
    expect(await expireDueOffers(api.db.sql, api.clock)).toBeGreaterThanOrEqual(1);
    const after = (await read(`/offers/${ids.overdue}`)).body.data;
    expect(after).toEqual(before);
    expect((await read('/offers?status=expired')).body.data.map((o: { id: string }) => o.id)).toEqual([ids.overdue]);
    expect((await read('/offers?status=sent')).body.data.map((o: { id: string }) => o.id)).not.toContain(ids.overdue);
  });

  it.each([
    ['draft', 'draft'],
    ['accepted', 'accepted'],
    ['withdrawn', 'withdrawn'],
  ] as const)('status=%s lists exactly the %s offers', async (status, key) => {
    const { body } = await read(`/offers?status=${status}`);
    expect(body.data.map((o: { id: string }) => o.id)).toEqual([ids[key]]);
  });

  it('status=declined is an empty list', async () => {
    expect((await read('/offers?status=declined')).body).toEqual({ data: [], next_cursor: null });
  });
});

describe('workspace isolation', () => {
  it('an offer of another workspace is 404 with the body of an unknown ID', async () => {
    const foreign = await read(`/offers/${ids.foreign}`);
    const unknown = await read('/offers/5b1f3e1c-2a4d-4e6f-8a9b-0c1d2e3f4a5b');
    const malformed = await read('/offers/12345');
    expect(foreign).toEqual({ status: 404, body: { error: { code: 'not_found', message: 'Resource not found.' } } });
    expect(unknown).toEqual(foreign);
    expect(malformed).toEqual(foreign);
    expect(await read(`/offers/${ids.foreign}/events`)).toEqual(foreign);
  });

  it('an ID with a malformed percent-escape is 404 with a valid key and 401 with an unknown one', async () => {
    for (const path of ['/offers/%E0%A4%A', '/offers/%E0%A4%A/events', '/offers/%zz']) {
      expect(await read(path)).toEqual({ status: 404, body: { error: { code: 'not_found', message: 'Resource not found.' } } });
      expect((await read(path, 'odk_live_' + 'Z'.repeat(40))).status).toBe(401);
    }
  });

  it('lists only the key\'s workspace', async () => {
    const mine = (await read('/offers?limit=100')).body.data.map((o: { id: string }) => o.id);
    expect(mine).not.toContain(ids.foreign);
    const theirs = (await read('/offers?limit=100', other.key)).body.data.map((o: { id: string }) => o.id);
    expect(theirs).toEqual([ids.foreign]);
    expect((await read('/workspace', other.key)).body.data.id).toBe(other.workspaceId);
  });

  it('lists only the key\'s workspace under every status filter, the deadline-aware ones included', async () => {
    for (const status of ['draft', 'sent', 'accepted', 'declined', 'expired', 'withdrawn']) {
      const theirs = (await read(`/offers?limit=100&status=${status}`, other.key)).body.data.map((o: { id: string }) => o.id);
      expect(theirs).toEqual(status === 'draft' ? [ids.foreign] : []);
    }
    const mine = (await read('/offers?limit=100&status=expired')).body.data.map((o: { id: string }) => o.id);
    expect(mine).toContain(ids.overdue);
  });

  it('an upper-case ID of an own offer is found', async () => {
    expect((await read(`/offers/${ids.sent.toUpperCase()}`)).status).toBe(200);
  });
});

describe('timestamps', () => {
  it('are clamped to years 0001..9999 with milliseconds', async () => {
    const { sql } = api.db;
    await sql`update offers set created_at = '0001-01-01 00:00:00+00'::timestamptz - interval '3 years',
                                expires_at = '12000-06-01 00:00:00+00' where id = ${ids.sent}::uuid`;
    const { body } = await read(`/offers/${ids.sent}`);
    expect(body.data.created_at).toBe('0001-01-01T00:00:00.000Z');
    expect(body.data.expires_at).toBe('9999-12-31T23:59:59.999Z');
    for (const value of [body.data.sent_at, body.data.updated_at]) expect(value).toMatch(TIMESTAMP);
  });
});
