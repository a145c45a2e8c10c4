import type { OfferStatus } from '../contract.js';
import { exhaustive } from '../exhaustive.js';
import type { Fragment, Queryable, Tx } from '../db/connect.js';
import { invalidInput, invalidTransition, notFound } from './errors.js';

export type { OfferStatus };
/** openapi.yaml "Offer states"; exactly openapi.yaml's `OfferStatus` (checked by the typecheck). */
export const OFFER_STATUSES = exhaustive<OfferStatus>()(['draft', 'sent', 'accepted', 'declined', 'expired', 'withdrawn']);

/** The offer row as an action sees it, read under its row lock. */
export interface LockedOffer {
  id: string;
  workspaceId: string;
  status: OfferStatus;
  expiresAt: Date | null;
  version: number | null;
  signersRequired: number;
  lastSequence: number;
  firstViewedVersion: number | null;
  /** occurred_at of the last timeline entry; `at` may not go back before it. */
  lastOccurredAt: Date | null;
}

/**
 * Locks the offer row for the rest of the transaction. The last entry's time is read by a second
 * statement on purpose: under READ COMMITTED it gets a fresh snapshot after the lock was granted,
 * so it sees the entry of a transaction we waited for.
 */
export async function lockOffer(tx: Tx, offerId: string): Promise<LockedOffer> {
  const [row] = await tx<
    {
      id: string;
      workspace_id: string;
      status: OfferStatus;
      expires_at: Date | null;
      version: number | null;
      signers_required: number;
      last_sequence: number;
      first_viewed_version: number | null;
    }[]
  >`
    select id, workspace_id, status, expires_at, version, signers_required, last_sequence, first_viewed_version
      from offers
     where id = ${offerId}::uuid
       for update`;
  if (!row) throw notFound(`offer ${offerId}`);
  const [last] = await tx<{ occurred_at: Date }[]>`
    select occurred_at from offer_events where offer_id = ${offerId}::uuid and sequence = ${row.last_sequence}`;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    status: row.status,
    expiresAt: row.expires_at,
    version: row.version,
    signersRequired: row.signers_required,
    lastSequence: row.last_sequence,
    firstViewedVersion: row.first_viewed_version,
    lastOccurredAt: last?.occurred_at ?? null,
  };
}

/**
 * An action recorded in the past (`at`, the CLI's `--at`) must not go back before the offer's last
 * timeline entry: the timeline is in time order (openapi.yaml "OfferEvent").
 */
export function requireNotBeforeLastEntry(offer: LockedOffer, at: Date): void {
  if (offer.lastOccurredAt && at.getTime() < offer.lastOccurredAt.getTime()) {
    throw invalidInput(
      `at (${at.toISOString()}) lies before the offer's last timeline entry (${offer.lastOccurredAt.toISOString()})`,
    );
  }
}

/**
 * openapi.yaml "Offer states": "A sent offer whose expires_at lies in the past is reported
 * with status expired". We apply the same reading to every rule: at or after its deadline a sent
 * offer is expired, whether or not the expiry job has run yet. So it can no longer be viewed,
 * edited, sent again, signed, accepted or withdrawn; the only move left is the expiry itself.
 */
export function statusAt(offer: LockedOffer, at: Date): OfferStatus {
  if (offer.status === 'sent' && offer.expiresAt && offer.expiresAt.getTime() <= at.getTime()) return 'expired';
  return offer.status;
}

/**
 * The same rule as statusAt, in SQL, for the reads that report statuses (src/read-model): true
 * when the offers row `alias` is a sent offer at or past its deadline at `at` (a time, or SQL
 * that gives one).
 */
export function overdueSql(sql: Queryable, alias: string, at: Date | Fragment) {
  return sql`(${sql(alias)}.status = 'sent' and ${sql(alias)}.expires_at <= ${at})`;
}

/** Refuses the action unless the offer is, at `at`, in one of the allowed states; changes nothing. */
export function requireStatus(offer: LockedOffer, at: Date, allowed: readonly OfferStatus[], action: string): void {
  const status = statusAt(offer, at);
  if (allowed.includes(status)) return;
  if (status === 'expired' && offer.status === 'sent') {
    throw invalidTransition(`cannot ${action} offer ${offer.id}: it expired at ${offer.expiresAt!.toISOString()}`);
  }
  throw invalidTransition(`cannot ${action} offer ${offer.id}: it is ${status} (allowed: ${allowed.join(', ')})`);
}
