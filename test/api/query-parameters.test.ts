import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

let api: TestApi;
let ws: WorkspaceFixture;
let offerA: string;
let offerB: string;

beforeAll(async () => {
  api = await startTestApi();
  ws = await workspaceWithKey(api.db.sql, api.clock);
  for (let i = 0; i < 3; i++) {
    const { id } = await createOffer(api.db.sql, api.clock, { workspaceId: ws.workspaceId, title: `Offer ${i}` });
    await sendOffer(api.db.sql, api.clock, { offerId: id, recipientEmail: 'buyer@client.example', expiresAt: new Date('2026-06-01T00:00:00Z') });
    api.clock.advance(1000);
    if (i === 0) offerA = id;
    if (i === 1) offerB = id;
  }
});
afterAll(async () => api.close());

const read = (pathAndQuery: string) => get(api.baseUrl + pathAndQuery, ws.key);

async function expectInvalid(pathAndQuery: string, param: string) {
  const res = await read(pathAndQuery);
  expect(res.status, pathAndQuery).toBe(400);
  expect(await res.json()).toEqual({
    error: { code: 'invalid_request', message: `Invalid value for query parameter "${param}".`, param },
  });
}

describe('limit: digits only, up to four, no clamping', () => {
  it.each(['1', '25', '100', '0001', '0100', '%31'])('offers limit=%s is accepted', async (limit) => {
    expect((await read(`/offers?limit=${limit}`)).status).toBe(200);
  });

  it.each(['0', '101', '1000', '9999', '+5', '-1', '%205', '5%20', '5.0', '1e2', '0x10', 'abc', '', '00001', '12345', '%D9%A3'])(
    'offers limit=%s is 400 with param limit',
    async (limit) => expectInvalid(`/offers?limit=${limit}`, 'limit'),
  );

  it('events accept limit up to 200 and refuse 201', async () => {
    expect((await read(`/offers/${offerA}/events?limit=200`)).status).toBe(200);
    await expectInvalid(`/offers/${offerA}/events?limit=201`, 'limit');
    await expectInvalid(`/offers/${offerA}/events?limit=0`, 'limit');
  });

  it('limit sets the page size', async () => {
    const body = await (await read('/offers?limit=2')).json();
    expect(body.data).toHaveLength(2);
    expect(body.next_cursor).toEqual(expect.any(String));
  });
});

describe('status', () => {
  it.each(['draft', 'sent', 'accepted', 'declined', 'expired', 'withdrawn'])('status=%s is accepted', async (status) => {
    expect((await read(`/offers?status=${status}`)).status).toBe(200);
  });

  it.each(['SENT', 'open', '', 'sent,draft'])('status=%s is 400 with param status', async (status) => {
    await expectInvalid(`/offers?status=${status}`, 'status');
  });
});

describe('openapi.yaml "Pagination"', () => {
  it('a parameter sent twice uses its first value', async () => {
    expect((await (await read('/offers?limit=1&limit=abc')).json()).data).toHaveLength(1);
    await expectInvalid('/offers?limit=abc&limit=1', 'limit');
    expect((await (await read('/offers?status=draft&status=sent')).json()).data).toHaveLength(0);
  });

  it('unknown query parameters are ignored', async () => {
    const res = await read('/offers?foo=bar&sort=title&limit=1&page=9');
    expect(res.status).toBe(200);
    expect((await res.json()).data).toHaveLength(1);
    expect((await read('/workspace?limit=abc&cursor=')).status).toBe(200);
  });

  it('several invalid parameters name the first declared one', async () => {
    await expectInvalid('/offers?cursor=&limit=0&status=nope', 'status');
  });
});

describe('cursor: opaque, tamper-evident, bound to its list', () => {
  async function firstCursor(pathAndQuery: string): Promise<string> {
    const body = await (await read(pathAndQuery)).json();
    expect(body.next_cursor).toEqual(expect.any(String));
    return body.next_cursor;
  }

  it('an empty cursor is 400', async () => expectInvalid('/offers?cursor=', 'cursor'));
  it('a cursor over 512 characters is 400', async () => expectInvalid(`/offers?cursor=${'a'.repeat(513)}`, 'cursor'));
  it('an unreadable cursor is 400', async () => expectInvalid('/offers?cursor=not-a-cursor', 'cursor'));

  it('an edited cursor is 400', async () => {
    const cursor = await firstCursor('/offers?limit=1');
    const [body, mac] = cursor.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString());
    payload.c = '2099-01-01 00:00:00+00';
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    await expectInvalid(`/offers?cursor=${forged}`, 'cursor');
    const flipped = cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA');
    await expectInvalid(`/offers?cursor=${flipped}`, 'cursor');
  });

  it('a cursor from another status filter is 400', async () => {
    const cursor = await firstCursor('/offers?status=sent&limit=1');
    expect((await read(`/offers?status=sent&cursor=${cursor}`)).status).toBe(200);
    await expectInvalid(`/offers?cursor=${cursor}`, 'cursor');
    await expectInvalid(`/offers?status=draft&cursor=${cursor}`, 'cursor');
  });

  it("a cursor from another offer's timeline is 400", async () => {
    const cursor = await firstCursor(`/offers/${offerA}/events?limit=1`);
    expect((await read(`/offers/${offerA}/events?cursor=${cursor}`)).status).toBe(200);
    await expectInvalid(`/offers/${offerB}/events?cursor=${cursor}`, 'cursor');
  });

  it('an offers cursor on a timeline and a timeline cursor on the offers list are 400', async () => {
    const offersCursor = await firstCursor('/offers?limit=1');
    const eventsCursor = await firstCursor(`/offers/${offerA}/events?limit=1`);
    await expectInvalid(`/offers/${offerA}/events?cursor=${offersCursor}`, 'cursor');
    await expectInvalid(`/offers?cursor=${eventsCursor}`, 'cursor');
  });

  it('a cursor made with another service key is 400', async () => {
    const other = await startTestApi();
    try {
      const otherWs = await workspaceWithKey(other.db.sql, other.clock);
      for (let i = 0; i < 2; i++) await createOffer(other.db.sql, other.clock, { workspaceId: otherWs.workspaceId, title: `X${i}` });
      const body = await (await get(other.baseUrl + '/offers?limit=1', otherWs.key)).json();
      await expectInvalid(`/offers?cursor=${body.next_cursor}`, 'cursor');
    } finally {
      await other.close();
    }
  });
});
