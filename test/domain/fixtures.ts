import { DAY, type ManualClock } from '../../src/clock.js';
import { workspace } from '../support/builders.js';
import type { Sql } from '../../src/db/connect.js';
import {
  acceptOffer,
  createOffer,
  expireOffer,
  sendOffer,
  signOffer,
  withdrawOffer,
  type SectionInput,
} from '../../src/domain/offer-actions.js';

/** One valid workspace with an owner (support/builders.ts); tests break one thing at a time from here. */
export async function workspaceWithOwner(sql: Sql, clock: ManualClock, tag?: string) {
  return workspace(sql, clock, { tag });
}

export const PRICING: SectionInput[] = [
  { id: 'intro', kind: 'text', title: 'Introduction', body: 'Hello' },
  {
    id: 'pricing',
    kind: 'pricing',
    packages: [
      { name: 'Basic', amount: 100_000 },
      { name: 'Pro', amount: 250_000, recommended: true },
    ],
  },
];

/** Every state an offer can be in, including "sent but past its deadline". */
export const STATES = ['draft', 'sent', 'overdue', 'accepted', 'withdrawn', 'expired', 'declined'] as const;
export type FixtureState = (typeof STATES)[number];

/**
 * An offer driven through the real actions into `state`; `signers` > 1 makes it multi-signer.
 * Everything happens at or before clock.now(), so tests can act at now.
 */
export async function offerIn(
  sql: Sql,
  clock: ManualClock,
  workspaceId: string,
  state: FixtureState,
  signers = 1,
): Promise<string> {
  const now = clock.now().getTime();
  const start = new Date(now - 10 * DAY);
  const { id } = await createOffer(sql, clock, { workspaceId, title: `Offer ${state}`, sections: PRICING, at: start });
  if (state === 'draft') return id;
  const overdue = state === 'overdue' || state === 'expired';
  await sendOffer(sql, clock, {
    offerId: id,
    recipientEmail: 'rita@client.test',
    recipientName: 'Rita Recipient',
    expiresAt: new Date(overdue ? now - DAY : now + 7 * DAY),
    signers,
    at: start,
  });
  if (state === 'accepted' && signers === 1) {
    await acceptOffer(sql, clock, { offerId: id, signerName: 'Rita', signerEmail: 'rita@client.test', at: start });
  }
  for (let s = 1; state === 'accepted' && signers > 1 && s <= signers; s++) {
    await signOffer(sql, clock, { offerId: id, signerName: `Signer ${s}`, signerEmail: `signer${s}@client.test`, at: start });
  }
  if (state === 'withdrawn') await withdrawOffer(sql, clock, { offerId: id, at: start });
  if (state === 'expired') await expireOffer(sql, clock, { offerId: id });
  if (state === 'declined') await sql`update offers set status = 'declined' where id = ${id}::uuid`;
  return id;
}

export async function offerRow(sql: Sql, id: string) {
  const [row] = await sql`select * from offers where id = ${id}::uuid`;
  return row!;
}

export async function timeline(sql: Sql, id: string) {
  return sql<{ sequence: number; type: string; occurred_at: Date; version: number | null; data: Record<string, unknown> }[]>`
    select sequence, type, occurred_at, version, data from offer_events where offer_id = ${id}::uuid order by sequence`;
}

export async function outbox(sql: Sql, id: string) {
  return sql<{ type: string; offer_sequence: number; occurred_at: Date; available_at: Date; created_at: Date }[]>`
    select type, offer_sequence, occurred_at, available_at, created_at from webhook_outbox
     where offer_id = ${id}::uuid order by offer_sequence`;
}
