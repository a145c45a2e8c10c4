import { DAY, type Clock } from '../../src/clock.js';
import type { Sql } from '../../src/db/connect.js';
import { createAccount, createWorkspace } from '../../src/domain/accounts.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { createOffer, sendOffer } from '../../src/domain/offer-actions.js';
import { showOfferDomain, verifyOfferDomain } from '../../src/domain/offer-domain.js';
import { randomTag } from './random.js';

/**
 * The tests' one set of builders: a workspace with its owner (and an API key), a sent offer, all
 * through the real domain operations. Tests break one thing at a time from here.
 */

let counter = 0;

export interface WorkspaceInput {
  /** Part of the owner's email and the default name; unique by default. */
  tag?: string;
  name?: string;
  currency?: string;
  timezone?: string;
  /** Made verified (its TXT record answers with the token), so it counts in the address rules. */
  offerDomain?: string;
}

export async function workspace(sql: Sql, clock: Clock, input: WorkspaceInput = {}) {
  counter += 1;
  const tag = input.tag ?? `${counter}-${randomTag(6)}`;
  const owner = await createAccount(sql, clock, { email: `owner-${tag}@agency.test`, name: 'Olivia Owner' });
  const ws = await createWorkspace(sql, clock, {
    name: input.name ?? `Agency ${tag}`,
    timezone: input.timezone ?? 'Europe/Berlin',
    currency: input.currency ?? 'EUR',
    offerDomain: input.offerDomain ?? null,
    ownerAccountId: owner.id,
  });
  if (input.offerDomain) {
    const { record } = await showOfferDomain(sql, ws.id);
    await verifyOfferDomain(sql, clock, {
      workspaceId: ws.id,
      actorId: owner.id,
      resolver: { resolveTxt: async (name) => (name === record!.name ? [[record!.value]] : []) },
    });
  }
  return { workspaceId: ws.id, ownerId: owner.id };
}

export interface WorkspaceFixture {
  workspaceId: string;
  ownerId: string;
  key: string;
  keyId: string;
}

/** A workspace with an owner and one API key. */
export async function workspaceWithKey(sql: Sql, clock: Clock, input: WorkspaceInput = {}): Promise<WorkspaceFixture> {
  const ws = await workspace(sql, clock, input);
  const key = await createApiKey(sql, clock, { workspaceId: ws.workspaceId, name: 'CRM sync', actingAccountId: ws.ownerId });
  return { ...ws, key: key.key, keyId: key.id };
}

/** A sent offer (one offer.sent event in the outbox), due in 14 days. */
export async function sentOffer(sql: Sql, clock: Clock, workspaceId: string, title = 'Website relaunch') {
  const offer = await createOffer(sql, clock, { workspaceId, title });
  await sendOffer(sql, clock, {
    offerId: offer.id,
    recipientEmail: 'buyer@client.test',
    recipientName: 'Bea Buyer',
    expiresAt: new Date(clock.now().getTime() + 14 * DAY),
  });
  return offer.id;
}
