import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { addMember, createAccount, createWorkspace } from '../../src/domain/accounts.js';
import { createOffer, sendOffer, withdrawOffer } from '../../src/domain/offer-actions.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { cliRunner } from './runner.js';


/** The CLI's look-ups and endpoint changes, as a real process against a fresh database. */

const MASTER_KEY = randomBytes(32).toString('base64');
let db: TestDatabase;
let owner: { id: string };
let other: { id: string };
let ws: { id: string };
let ws2: { id: string };

const { cli, json } = cliRunner(() => ({
  DATABASE_URL: db.url,
  LOG_LEVEL: 'silent',
  // With DATABASE_URL set, sealing an endpoint's secret needs the master key (console-api.yaml "Webhook endpoints").
  OFFERDESK_MASTER_KEY: MASTER_KEY,
  OFFERDESK_WEBHOOK_DEV_RESOLVE: 'receiver.acme.io=127.0.0.1:9,new.acme.io=127.0.0.1:9',
}));

beforeAll(async () => {
  db = await freshDatabase();
  owner = await createAccount(db.sql, systemClock, { email: 'olivia@agency.test', name: 'Olivia Owner' });
  other = await createAccount(db.sql, systemClock, { email: 'max@other.test', name: 'Max Other' });
  ws = await createWorkspace(db.sql, systemClock, { name: 'Agency', timezone: 'Europe/Berlin', currency: 'EUR', ownerAccountId: owner.id });
  ws2 = await createWorkspace(db.sql, systemClock, { name: 'Other', timezone: 'UTC', currency: 'USD', ownerAccountId: other.id });
  await addMember(db.sql, systemClock, { actorId: null, workspaceId: ws2.id, accountId: owner.id, role: 'member' });
}, 60_000);
afterAll(async () => {
  await db.drop();
});

describe('look-ups', () => {
  it('account list shows every account with id, email and name', async () => {
    const list = await json<{ data: { id: string; email: string; name: string }[] }>('account', 'list');
    expect(list.data.map((a) => [a.id, a.email, a.name])).toEqual([
      [owner.id, 'olivia@agency.test', 'Olivia Owner'],
      [other.id, 'max@other.test', 'Max Other'],
    ]);
  }, 60_000);

  it("workspace list shows owners, and with --as only that account's workspaces with its role", async () => {
    const all = await json<{ data: { id: string; owners: string[] }[] }>('workspace', 'list');
    expect(all.data).toMatchObject([
      { id: ws.id, owners: ['olivia@agency.test'] },
      { id: ws2.id, owners: ['max@other.test'] },
    ]);
    const mine = await json<{ data: { id: string; role: string }[] }>('workspace', 'list', '--as', 'max@other.test');
    expect(mine.data).toMatchObject([{ id: ws2.id, role: 'owner' }]);
    const member = await json<{ data: { id: string; role: string }[] }>('workspace', 'list', '--as', 'olivia@agency.test');
    expect(member.data.map((w) => [w.id, w.role])).toEqual([
      [ws.id, 'owner'],
      [ws2.id, 'member'],
    ]);
  }, 60_000);

  it('offer list filters by status, newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createOffer(db.sql, systemClock, { workspaceId: ws.id, title: `Offer ${i}` })).id);
    await sendOffer(db.sql, systemClock, { offerId: ids[1]!, recipientEmail: 'r@client.test', expiresAt: new Date(Date.now() + 864e6) });
    await sendOffer(db.sql, systemClock, { offerId: ids[2]!, recipientEmail: 'r@client.test', expiresAt: new Date(Date.now() + 864e6) });
    await withdrawOffer(db.sql, systemClock, { offerId: ids[2]! });
    const sent = await json<{ data: { id: string; status: string }[] }>('offer', 'list', '--workspace', ws.id, '--status', 'sent');
    expect(sent.data.map((o) => o.id)).toEqual([ids[1]]);
    const all = await json<{ data: { id: string }[] }>('offer', 'list', '--workspace', ws.id);
    expect(all.data.map((o) => o.id)).toEqual([ids[2], ids[1], ids[0]]);
    const bad = await cli('offer', 'list', '--workspace', ws.id, '--status', 'open');
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toBe('offerdesk: status must be one of draft, sent, accepted, declined, expired, withdrawn, got "open"\n');
  }, 60_000);

  it('key list shows the visible part of each key and never the key', async () => {
    const { key } = await createApiKey(db.sql, systemClock, { workspaceId: ws.id, name: 'CRM', actingAccountId: owner.id });
    const run = await cli('key', 'list', '--workspace', ws.id, '--as', 'olivia@agency.test');
    expect(run.stdout).toContain(`odk_live_…${key.slice(-4)}`);
    expect(run.stdout).not.toContain(key);
  }, 60_000);
});

describe('endpoint update and pause', () => {
  it('changes the events and the address, checked by the address rules, and pauses by hand', async () => {
    const added = await json<{ id: string }>('endpoint', 'add', '--workspace', ws.id, '--url', 'https://receiver.acme.io/in', '--events', 'offer.sent', '--as', 'olivia@agency.test');
    const updated = await json<{ url: string; events: string[] }>('endpoint', 'update', added.id, '--events', 'offer.accepted,offer.expired', '--as', 'olivia@agency.test');
    expect(updated).toMatchObject({ url: 'https://receiver.acme.io/in', events: ['offer.accepted', 'offer.expired'] });
    const moved = await json<{ url: string }>('endpoint', 'update', added.id, '--url', 'https://new.acme.io/hooks', '--as', 'olivia@agency.test');
    expect(moved.url).toBe('https://new.acme.io/hooks');

    const refused = await cli('endpoint', 'update', added.id, '--url', 'https://localhost:3000/', '--as', 'olivia@agency.test');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'offerdesk: endpoint address refused: host name must be public (.localhost names are internal); for a receiver on this machine run "offerdesk listen"\n',
    );
    const member = await cli('endpoint', 'pause', added.id, '--as', 'max@other.test');
    expect(member.code).toBe(2);

    const paused = await json<{ state: string; cancelled_deliveries: number }>('endpoint', 'pause', added.id, '--as', 'olivia@agency.test');
    expect(paused).toMatchObject({ state: 'paused', cancelled_deliveries: 0 });
    const [row] = await db.sql`select state, url, event_types from webhook_endpoints where id = ${added.id}::uuid`;
    expect(row).toEqual({ state: 'paused', url: 'https://new.acme.io/hooks', event_types: ['offer.accepted', 'offer.expired'] });
  }, 120_000);
});
