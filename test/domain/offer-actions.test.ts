import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY, HOUR, ManualClock, MINUTE } from '../../src/clock.js';
import {
  acceptOffer,
  createOffer,
  editOffer,
  failCode,
  requestCode,
  sendOffer,
  signOffer,
  useCalculator,
  verifyCode,
  viewOffer,
  viewSection,
  viewSummary,
  withdrawOffer,
} from '../../src/domain/offer-actions.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { offerIn, offerRow, outbox, PRICING, timeline, workspaceWithOwner } from './fixtures.js';

let db: TestDatabase;
const clock = new ManualClock();
let workspaceId: string;
const START = new Date('2026-01-15T10:00:00.000Z');

beforeAll(async () => {
  db = await freshDatabase();
  ({ workspaceId } = await workspaceWithOwner(db.sql, clock));
});
afterAll(async () => {
  await db.drop();
});
beforeEach(() => clock.set(START));

async function draft(): Promise<string> {
  return (await createOffer(db.sql, clock, { workspaceId, title: 'Website relaunch', sections: PRICING })).id;
}

async function sent(signers = 1): Promise<string> {
  const id = await draft();
  await sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'rita@client.test', expiresAt: new Date(START.getTime() + 14 * DAY), signers });
  return id;
}

describe('create and edit', () => {
  it('a new offer is a draft with one created entry and no webhook', async () => {
    const id = await draft();
    const offer = await offerRow(db.sql, id);
    expect(offer).toMatchObject({ status: 'draft', sent_at: null, expires_at: null, version: null, currency: 'EUR', last_sequence: 1 });
    expect(offer.created_at).toEqual(START);
    expect(await timeline(db.sql, id)).toEqual([{ sequence: 1, type: 'created', occurred_at: START, version: null, data: {} }]);
    expect(await outbox(db.sql, id)).toEqual([]);
  });

  it('an offer takes the currency given instead of the workspace default', async () => {
    const { id } = await createOffer(db.sql, clock, { workspaceId, title: 'In dollars', currency: 'USD' });
    expect((await offerRow(db.sql, id)).currency).toBe('USD');
  });

  it('an edit replaces title and sections, recomputes value and emits no webhook', async () => {
    const id = await draft();
    clock.advance(MINUTE);
    await editOffer(db.sql, clock, {
      offerId: id,
      title: 'Website relaunch, phase 2',
      sections: [{ id: 'p', kind: 'pricing', packages: [{ name: 'Only', amount: 777 }] }],
    });
    const offer = await offerRow(db.sql, id);
    expect(offer).toMatchObject({ title: 'Website relaunch, phase 2', value_amount: 777 });
    expect(offer.updated_at).toEqual(clock.now());
    expect((await timeline(db.sql, id)).map((e) => e.type)).toEqual(['created', 'edited']);
    expect(await outbox(db.sql, id)).toEqual([]);
  });

  it('an edit without title or sections is refused', async () => {
    const id = await draft();
    await expect(editOffer(db.sql, clock, { offerId: id })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('sections with a duplicate id are refused', async () => {
    await expect(
      createOffer(db.sql, clock, {
        workspaceId,
        title: 'Bad',
        sections: [
          { id: 'a', kind: 'text' },
          { id: 'a', kind: 'text' },
        ],
      }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('an offer in an unknown workspace is not_found', async () => {
    await expect(
      createOffer(db.sql, clock, { workspaceId: '00000000-0000-4000-8000-000000000000', title: 'x' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('send', () => {
  it('sending a draft sets sent_at, expires_at, version 1 and the recipient, with entry and offer.sent', async () => {
    const id = await draft();
    clock.advance(HOUR);
    const expiresAt = new Date(START.getTime() + 14 * DAY);
    await sendOffer(db.sql, clock, {
      offerId: id,
      recipientEmail: 'rita@client.test',
      recipientName: 'Rita Recipient',
      recipientCompany: 'Client GmbH',
      expiresAt,
    });
    const offer = await offerRow(db.sql, id);
    expect(offer).toMatchObject({
      status: 'sent',
      version: 1,
      recipient_email: 'rita@client.test',
      recipient_name: 'Rita Recipient',
      recipient_company: 'Client GmbH',
      signers_required: 1,
    });
    expect(offer.sent_at).toEqual(clock.now());
    expect(offer.expires_at).toEqual(expiresAt);
    expect((await timeline(db.sql, id))[1]).toEqual({
      sequence: 2,
      type: 'sent',
      occurred_at: clock.now(),
      version: 1,
      data: { recipient_email: 'rita@client.test' },
    });
    expect(await outbox(db.sql, id)).toEqual([
      { type: 'offer.sent', offer_sequence: 2, occurred_at: clock.now(), available_at: clock.now(), created_at: clock.now() },
    ]);
  });

  it('sending again makes a new version with a new deadline and another offer.sent', async () => {
    const id = await sent();
    clock.advance(DAY);
    const expiresAt = new Date(clock.now().getTime() + 30 * DAY);
    const result = await sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'new@client.test', expiresAt });
    expect(result).toMatchObject({ status: 'sent', version: 2, sequence: 3 });
    const offer = await offerRow(db.sql, id);
    expect(offer).toMatchObject({ version: 2, recipient_email: 'new@client.test', recipient_name: null });
    expect(offer.expires_at).toEqual(expiresAt);
    expect(offer.sent_at).toEqual(clock.now());
    expect((await outbox(db.sql, id)).map((row) => row.type)).toEqual(['offer.sent', 'offer.sent']);
  });

  it('a deadline not after the sending is refused', async () => {
    const id = await draft();
    await expect(
      sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'rita@client.test', expiresAt: clock.now() }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('a recipient email without @ is refused', async () => {
    const id = await draft();
    await expect(
      sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'rita.client.test', expiresAt: new Date(START.getTime() + DAY) }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('more than 20 signers are refused', async () => {
    const id = await draft();
    await expect(
      sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'r@c.test', expiresAt: new Date(START.getTime() + DAY), signers: 21 }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('recipient interactions', () => {
  it('offer.first_viewed is emitted once per sent version', async () => {
    const id = await sent();
    await viewOffer(db.sql, clock, { offerId: id, ip: '203.0.113.9', userAgent: 'Mozilla/5.0' });
    await viewOffer(db.sql, clock, { offerId: id });
    await sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'rita@client.test', expiresAt: new Date(START.getTime() + 20 * DAY) });
    await viewOffer(db.sql, clock, { offerId: id });
    await viewOffer(db.sql, clock, { offerId: id });
    const rows = await outbox(db.sql, id);
    expect(rows.map((row) => [row.type, row.offer_sequence])).toEqual([
      ['offer.sent', 2],
      ['offer.first_viewed', 3],
      ['offer.sent', 5],
      ['offer.first_viewed', 6],
    ]);
    expect((await timeline(db.sql, id)).filter((e) => e.type === 'viewed').map((e) => e.version)).toEqual([1, 1, 2, 2]);
  });

  it('a view keeps the recipient address and browser in the timeline row', async () => {
    const id = await sent();
    await viewOffer(db.sql, clock, { offerId: id, ip: '203.0.113.9', userAgent: 'Mozilla/5.0' });
    const [row] = await db.sql`select host(ip) as ip, user_agent, data from offer_events where offer_id = ${id}::uuid and type = 'viewed'`;
    expect(row).toEqual({ ip: '203.0.113.9', user_agent: 'Mozilla/5.0', data: {} });
  });

  it('a view with a malformed ip is refused', async () => {
    const id = await sent();
    await expect(viewOffer(db.sql, clock, { offerId: id, ip: '999.1.1.1' })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('section, calculator, summary and code entries carry their data and emit no webhook', async () => {
    const id = await sent();
    await viewSection(db.sql, clock, { offerId: id, sectionId: 'pricing', durationMs: 4200 });
    await useCalculator(db.sql, clock, { offerId: id });
    await viewSummary(db.sql, clock, { offerId: id });
    await requestCode(db.sql, clock, { offerId: id, signerEmail: 'rita@client.test' });
    await failCode(db.sql, clock, { offerId: id, signerEmail: 'rita@client.test' });
    await verifyCode(db.sql, clock, { offerId: id, signerEmail: 'rita@client.test' });
    const entries = (await timeline(db.sql, id)).slice(2).map((e) => [e.type, e.version, e.data]);
    expect(entries).toEqual([
      ['section_viewed', 1, { section_id: 'pricing', duration_ms: 4200 }],
      ['calculator_used', 1, {}],
      ['summary_viewed', 1, {}],
      ['code_requested', 1, { signer_email: 'rita@client.test' }],
      ['code_failed', 1, { signer_email: 'rita@client.test' }],
      ['code_verified', 1, { signer_email: 'rita@client.test' }],
    ]);
    expect((await outbox(db.sql, id)).map((row) => row.type)).toEqual(['offer.sent']);
  });

  it('a view of a section the offer does not have is refused', async () => {
    const id = await sent();
    await expect(viewSection(db.sql, clock, { offerId: id, sectionId: 'nope', durationMs: 1 })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});

describe('acceptance', () => {
  it('a single signer accepts: accepted_at, accepted_by, entry and offer.accepted', async () => {
    const id = await sent();
    clock.advance(2 * DAY);
    await acceptOffer(db.sql, clock, { offerId: id, signerName: 'Rita Recipient', signerEmail: 'rita@client.test' });
    const offer = await offerRow(db.sql, id);
    expect(offer).toMatchObject({ status: 'accepted', accepted_by_name: 'Rita Recipient', accepted_by_email: 'rita@client.test' });
    expect(offer.accepted_at).toEqual(clock.now());
    expect((await timeline(db.sql, id)).at(-1)).toMatchObject({ type: 'accepted', version: 1, data: { signer_email: 'rita@client.test' } });
    expect((await outbox(db.sql, id)).map((row) => row.type)).toEqual(['offer.sent', 'offer.accepted']);
  });

  it('three signers: two signed entries with offer.signed, then the last signature accepts with offer.accepted only', async () => {
    const id = await sent(3);
    const first = await signOffer(db.sql, clock, { offerId: id, signerName: 'A', signerEmail: 'a@client.test', role: 'CEO' });
    const second = await signOffer(db.sql, clock, { offerId: id, signerName: 'B', signerEmail: 'b@client.test' });
    const last = await signOffer(db.sql, clock, { offerId: id, signerName: 'C', signerEmail: 'c@client.test', role: 'CFO' });
    expect([first.accepted, second.accepted, last.accepted]).toEqual([false, false, true]);
    const entries = (await timeline(db.sql, id)).slice(2).map((e) => [e.type, e.data]);
    expect(entries).toEqual([
      ['signed', { signer_email: 'a@client.test', signer_role: 'CEO', signing_order: 1, signer_total: 3 }],
      ['signed', { signer_email: 'b@client.test', signing_order: 2, signer_total: 3 }],
      ['accepted', { signer_email: 'c@client.test' }],
    ]);
    expect((await outbox(db.sql, id)).map((row) => row.type)).toEqual(['offer.sent', 'offer.signed', 'offer.signed', 'offer.accepted']);
    expect(await offerRow(db.sql, id)).toMatchObject({ status: 'accepted', accepted_by_name: 'C', accepted_by_email: 'c@client.test' });
  });

  it('signatures belong to one version: sending again starts the count over', async () => {
    const id = await sent(2);
    await signOffer(db.sql, clock, { offerId: id, signerName: 'A', signerEmail: 'a@client.test' });
    await sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'a@client.test', expiresAt: new Date(START.getTime() + DAY), signers: 2 });
    const again = await signOffer(db.sql, clock, { offerId: id, signerName: 'A', signerEmail: 'a@client.test' });
    expect(again).toMatchObject({ accepted: false, version: 2 });
    expect((await timeline(db.sql, id)).at(-1)!.data).toMatchObject({ signing_order: 1, signer_total: 2 });
  });

  it('a withdrawal ends the offer with offer.withdrawn', async () => {
    const id = await sent();
    await withdrawOffer(db.sql, clock, { offerId: id });
    expect((await offerRow(db.sql, id)).status).toBe('withdrawn');
    expect((await timeline(db.sql, id)).at(-1)).toMatchObject({ type: 'withdrawn', version: 1, data: {} });
    expect((await outbox(db.sql, id)).map((row) => row.type)).toEqual(['offer.sent', 'offer.withdrawn']);
  });
});

describe('one transaction per action', () => {
  it('twenty concurrent views of one offer get sequences 3..22 without gaps', async () => {
    const id = await sent();
    await Promise.all(Array.from({ length: 20 }, () => viewOffer(db.sql, clock, { offerId: id })));
    const sequences = (await timeline(db.sql, id)).map((e) => e.sequence);
    expect(sequences).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    expect((await offerRow(db.sql, id)).last_sequence).toBe(22);
    expect((await outbox(db.sql, id)).filter((row) => row.type === 'offer.first_viewed')).toHaveLength(1);
  });

  it('a failure after the timeline insert rolls back the offer change, the entry and the outbox row', async () => {
    const id = await offerIn(db.sql, clock, workspaceId, 'sent');
    const before = await offerRow(db.sql, id);
    // Fails at commit, after the update, the timeline insert and the outbox insert all ran.
    await db.sql`
      create function fail_withdrawal() returns trigger language plpgsql as $$
      begin raise exception 'forced failure'; end $$`;
    await db.sql`
      create constraint trigger fail_withdrawal after insert on offer_events
      deferrable initially deferred for each row when (new.type = 'withdrawn')
      execute function fail_withdrawal()`;
    try {
      await expect(withdrawOffer(db.sql, clock, { offerId: id })).rejects.toThrow('forced failure');
    } finally {
      await db.sql`drop trigger fail_withdrawal on offer_events`;
      await db.sql`drop function fail_withdrawal()`;
    }
    expect(await offerRow(db.sql, id)).toEqual(before);
    expect((await timeline(db.sql, id)).map((e) => e.type)).toEqual(['created', 'sent']);
    expect((await outbox(db.sql, id)).map((row) => row.type)).toEqual(['offer.sent']);
  });
});

describe('at: recording a past action', () => {
  it('an action at a past time is recorded at that time and sets updated_at to it', async () => {
    const id = await sent();
    clock.advance(DAY);
    const at = new Date(START.getTime() + HOUR);
    await viewOffer(db.sql, clock, { offerId: id, at });
    expect((await timeline(db.sql, id)).at(-1)!.occurred_at).toEqual(at);
    expect((await offerRow(db.sql, id)).updated_at).toEqual(at);
    const [row] = await outbox(db.sql, id).then((rows) => rows.filter((r) => r.type === 'offer.first_viewed'));
    expect(row).toMatchObject({ occurred_at: at, created_at: clock.now(), available_at: clock.now() });
  });

  it('at before the last timeline entry is refused', async () => {
    const id = await sent();
    await expect(viewOffer(db.sql, clock, { offerId: id, at: new Date(START.getTime() - 1) })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('at in the future is refused', async () => {
    const id = await sent();
    await expect(viewOffer(db.sql, clock, { offerId: id, at: new Date(START.getTime() + 1) })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('at outside the years 0001 to 9999 is refused', async () => {
    await expect(
      createOffer(db.sql, clock, { workspaceId, title: 'Ancient', at: new Date('-000001-01-01T00:00:00.000Z') }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('a deadline after 9999 is refused', async () => {
    const id = await draft();
    await expect(
      sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'r@c.test', expiresAt: new Date('+010000-01-01T00:00:00.000Z') }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('the deadline rule is judged at at: a send at a past time needs a deadline after that time only', async () => {
    const { id } = await createOffer(db.sql, clock, { workspaceId, title: 'Import', at: new Date(START.getTime() - 10 * DAY) });
    const deadline = new Date(START.getTime() - 5 * DAY);
    await sendOffer(db.sql, clock, { offerId: id, recipientEmail: 'r@c.test', expiresAt: deadline, at: new Date(START.getTime() - 9 * DAY) });
    await viewOffer(db.sql, clock, { offerId: id, at: new Date(START.getTime() - 6 * DAY) });
    await expect(viewOffer(db.sql, clock, { offerId: id })).rejects.toMatchObject({ code: 'invalid_transition' });
    expect((await timeline(db.sql, id)).map((e) => e.type)).toEqual(['created', 'sent', 'viewed']);
  });
});
