import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, ManualClock } from '../../src/clock.js';
import type { Clock } from '../../src/clock.js';
import type { Sql } from '../../src/db/connect.js';
import { DomainError } from '../../src/domain/errors.js';
import {
  acceptOffer,
  editOffer,
  expireOffer,
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
import { offerIn, offerRow, STATES, workspaceWithOwner, type FixtureState } from './fixtures.js';

/**
 * openapi.yaml "Offer states" as a table: every action against every state. An action is
 * allowed only in the states listed; everywhere else it is refused and changes nothing.
 * "overdue" is a sent offer past its deadline, which counts as expired for every rule.
 */
type Action = (sql: Sql, clock: Clock, offerId: string) => Promise<unknown>;

const ACTIONS: { name: string; allowed: FixtureState[]; signers?: number; run: Action }[] = [
  { name: 'edit', allowed: ['draft', 'sent'], run: (sql, c, offerId) => editOffer(sql, c, { offerId, title: 'New title' }) },
  {
    name: 'send',
    allowed: ['draft', 'sent'],
    run: (sql, c, offerId) =>
      sendOffer(sql, c, { offerId, recipientEmail: 'rita@client.test', expiresAt: new Date(c.now().getTime() + DAY) }),
  },
  { name: 'view', allowed: ['sent'], run: (sql, c, offerId) => viewOffer(sql, c, { offerId }) },
  {
    name: 'section view',
    allowed: ['sent'],
    run: (sql, c, offerId) => viewSection(sql, c, { offerId, sectionId: 'pricing', durationMs: 1500 }),
  },
  { name: 'calculator use', allowed: ['sent'], run: (sql, c, offerId) => useCalculator(sql, c, { offerId }) },
  { name: 'summary view', allowed: ['sent'], run: (sql, c, offerId) => viewSummary(sql, c, { offerId }) },
  { name: 'code request', allowed: ['sent'], run: (sql, c, offerId) => requestCode(sql, c, { offerId, signerEmail: 'a@b.test' }) },
  { name: 'code failure', allowed: ['sent'], run: (sql, c, offerId) => failCode(sql, c, { offerId, signerEmail: 'a@b.test' }) },
  { name: 'code verification', allowed: ['sent'], run: (sql, c, offerId) => verifyCode(sql, c, { offerId, signerEmail: 'a@b.test' }) },
  {
    name: 'accept',
    allowed: ['sent'],
    run: (sql, c, offerId) => acceptOffer(sql, c, { offerId, signerName: 'Rita', signerEmail: 'rita@client.test' }),
  },
  {
    name: 'sign',
    allowed: ['sent'],
    signers: 2,
    run: (sql, c, offerId) => signOffer(sql, c, { offerId, signerName: 'Sam', signerEmail: 'sam@client.test' }),
  },
  { name: 'withdraw', allowed: ['sent'], run: (sql, c, offerId) => withdrawOffer(sql, c, { offerId }) },
  { name: 'expire', allowed: ['overdue'], run: (sql, c, offerId) => expireOffer(sql, c, { offerId }) },
];

let db: TestDatabase;
const clock = new ManualClock('2026-03-01T12:00:00.000Z');
let workspaceId: string;

beforeAll(async () => {
  db = await freshDatabase();
  ({ workspaceId } = await workspaceWithOwner(db.sql, clock));
});
afterAll(async () => {
  await db.drop();
});

async function outboxCount(offerId: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_outbox where offer_id = ${offerId}::uuid`;
  return row!.n;
}

describe.each(ACTIONS)('$name', ({ allowed, signers, run }) => {
  it.each(STATES.filter((state) => allowed.includes(state)))('is allowed on a %s offer and appends one entry', async (state) => {
    const id = await offerIn(db.sql, clock, workspaceId, state, signers);
    const before = await offerRow(db.sql, id);
    await run(db.sql, clock, id);
    const after = await offerRow(db.sql, id);
    expect(after.last_sequence).toBe(before.last_sequence + 1);
    expect(after.updated_at).toEqual(state === 'overdue' ? before.expires_at : clock.now());
  });

  it.each(STATES.filter((state) => !allowed.includes(state)))('is refused on a %s offer and changes nothing', async (state) => {
    const id = await offerIn(db.sql, clock, workspaceId, state, signers);
    const before = await offerRow(db.sql, id);
    const outboxBefore = await outboxCount(id);
    const error = await run(db.sql, clock, id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_transition');
    expect(await offerRow(db.sql, id)).toEqual(before);
    expect(await outboxCount(id)).toBe(outboxBefore);
  });
});

describe('signer count', () => {
  it('accept is refused on a multi-signer offer', async () => {
    const id = await offerIn(db.sql, clock, workspaceId, 'sent', 3);
    await expect(acceptOffer(db.sql, clock, { offerId: id, signerName: 'R', signerEmail: 'r@c.test' })).rejects.toMatchObject({
      code: 'invalid_transition',
    });
  });

  it('sign is refused on a single-signer offer', async () => {
    const id = await offerIn(db.sql, clock, workspaceId, 'sent', 1);
    await expect(signOffer(db.sql, clock, { offerId: id, signerName: 'R', signerEmail: 'r@c.test' })).rejects.toMatchObject({
      code: 'invalid_transition',
    });
  });

  it('the same signer cannot sign one version twice', async () => {
    const id = await offerIn(db.sql, clock, workspaceId, 'sent', 3);
    await signOffer(db.sql, clock, { offerId: id, signerName: 'Sam', signerEmail: 'sam@client.test' });
    await expect(
      signOffer(db.sql, clock, { offerId: id, signerName: 'Sam', signerEmail: 'SAM@client.test' }),
    ).rejects.toMatchObject({ code: 'invalid_transition' });
  });
});

it('an unknown offer id is not_found, and an id of the wrong form too', async () => {
  await expect(viewOffer(db.sql, clock, { offerId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'not_found' });
  await expect(viewOffer(db.sql, clock, { offerId: 'nope' })).rejects.toMatchObject({ code: 'not_found' });
});
