import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../src/db/connect.js';
import { createOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

/**
 * The performance budget (src/read-model/scope.ts): one request does at most two round trips to
 * PostgreSQL in the steady state, and a keyed read is one statement (the key check folded into the
 * read). postgres.js reports every query it sends to `debug`.
 */
let db: TestDatabase;
let api: TestApi;
let ws: WorkspaceFixture;
let offerId: string;
let queries = 0;
let counting: Sql;

beforeAll(async () => {
  db = await freshDatabase();
  counting = connect(db.url, {
    max: 4,
    debug: () => {
      queries += 1;
    },
  });
  api = await startTestApi({ db: { ...db, sql: counting } });
  ws = await workspaceWithKey(db.sql, api.clock);
  offerId = (await createOffer(db.sql, api.clock, { workspaceId: ws.workspaceId, title: 'Counted' })).id;
  await sendOffer(db.sql, api.clock, { offerId, recipientEmail: 'a@b.example', expiresAt: new Date('2027-01-01T00:00:00Z') });
});
afterAll(async () => {
  await api.close();
  await counting.end();
  await db.drop();
});

describe('round trips per request', () => {
  it.each(['/workspace', '/offers', '/offers?status=expired', '/offers/{id}', '/offers/{id}/events', '/offers/00000000-0000-4000-8000-000000000000'])(
    'GET %s costs at most two queries',
    async (path) => {
      const url = api.baseUrl + path.replace('{id}', () => offerId);
      await get(url, ws.key); // warm-up
      queries = 0;
      const res = await get(url, ws.key);
      expect(res.status).toBeLessThan(500);
      expect(queries).toBeGreaterThanOrEqual(1);
      expect(queries).toBeLessThanOrEqual(2);
    },
  );

  it.each(['/workspace', '/offers', '/offers?status=expired', '/offers?status=sent', '/offers/{id}', '/offers/{id}/events', '/offers/00000000-0000-4000-8000-000000000000', '/offers/not-an-id'])(
    'GET %s is one statement: the key check folded into the read',
    async (path) => {
      const url = api.baseUrl + path.replace('{id}', () => offerId);
      await get(url, ws.key); // warm-up
      queries = 0;
      const res = await get(url, ws.key);
      expect(res.status).toBeLessThan(500);
      expect(queries).toBe(1);
    },
  );

  it('an unknown key of the right form costs one statement too', async () => {
    queries = 0;
    expect((await get(api.baseUrl + '/offers', `${ws.key.slice(0, -4)}zzzz`)).status).toBe(401);
    expect(queries).toBe(1);
  });

  it('a refused key form costs no query at all', async () => {
    queries = 0;
    expect((await get(api.baseUrl + '/offers', 'not-a-key')).status).toBe(401);
    expect(queries).toBe(0);
  });
});
