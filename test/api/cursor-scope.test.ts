import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOffer, viewOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

// openapi.yaml "Pagination": "A cursor is used only with the list it came from". One
// workspace's list is not another's, even when both keys are valid.

let api: TestApi;
let a: WorkspaceFixture;
let b: WorkspaceFixture;
let offerOfA: string;
let offerOfB: string;

async function offerWithTimeline(ws: WorkspaceFixture): Promise<string> {
  const { id } = await createOffer(api.db.sql, api.clock, { workspaceId: ws.workspaceId, title: 'Timeline' });
  await sendOffer(api.db.sql, api.clock, { offerId: id, recipientEmail: 'r@client.example', expiresAt: new Date('2027-01-01T00:00:00Z') });
  await viewOffer(api.db.sql, api.clock, { offerId: id });
  return id;
}

async function nextCursor(path: string, key: string): Promise<string> {
  const body = (await (await get(api.baseUrl + path, key)).json()) as { next_cursor: string | null };
  expect(body.next_cursor).toEqual(expect.any(String));
  return body.next_cursor!;
}

const invalidCursor = { error: { code: 'invalid_request', message: 'Invalid value for query parameter "cursor".', param: 'cursor' } };

beforeAll(async () => {
  api = await startTestApi();
  a = await workspaceWithKey(api.db.sql, api.clock);
  b = await workspaceWithKey(api.db.sql, api.clock);
  offerOfA = await offerWithTimeline(a);
  offerOfB = await offerWithTimeline(b);
  await createOffer(api.db.sql, api.clock, { workspaceId: a.workspaceId, title: 'Second of A' });
  await createOffer(api.db.sql, api.clock, { workspaceId: b.workspaceId, title: 'Second of B' });
});
afterAll(async () => api.close());

describe('a cursor is bound to the workspace it was read for', () => {
  it('an offers cursor of one workspace is refused with another workspace\'s key (400 cursor)', async () => {
    const cursor = await nextCursor('/offers?limit=1', a.key);
    const res = await get(`${api.baseUrl}/offers?limit=1&cursor=${encodeURIComponent(cursor)}`, b.key);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(invalidCursor);
    // The same cursor still walks on with its own workspace's key.
    expect((await get(`${api.baseUrl}/offers?limit=1&cursor=${encodeURIComponent(cursor)}`, a.key)).status).toBe(200);
  });

  it('a timeline cursor of one workspace is refused on that offer with another workspace\'s key (400, not 404)', async () => {
    const cursor = await nextCursor(`/offers/${offerOfA}/events?limit=1`, a.key);
    const res = await get(`${api.baseUrl}/offers/${offerOfA}/events?limit=1&cursor=${encodeURIComponent(cursor)}`, b.key);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(invalidCursor);
    const onOwnOffer = await get(`${api.baseUrl}/offers/${offerOfB}/events?limit=1&cursor=${encodeURIComponent(cursor)}`, b.key);
    expect(onOwnOffer.status).toBe(400);
  });

  it('an unknown key with a valid cursor is still 401 (openapi.yaml "Order of checks": the key before the resource)', async () => {
    const cursor = await nextCursor('/offers?limit=1', a.key);
    const unknown = 'odk_live_' + 'x'.repeat(40);
    const res = await get(`${api.baseUrl}/offers?limit=1&cursor=${encodeURIComponent(cursor)}`, unknown);
    expect(res.status).toBe(401);
  });
});
