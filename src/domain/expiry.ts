import type { Clock } from '../clock.js';
import type { Sql, Tx } from '../db/connect.js';
import { recordWebhookEvent } from './outbox.js';

/**
 * openapi.yaml "Offer states": sent → expired when "expires_at reached"; expired_at is set
 * and offer.expired is emitted. Dates follow the deadline, not the job: expired_at, updated_at
 * and the entry's occurred_at are the offer's expires_at, because that is when the offer expired
 * (and when the API already started reporting it as expired, before this job ran). The entry's
 * data.expires_at is the deadline truncated to whole seconds (openapi.yaml "OfferEvent": "it may
 * differ in milliseconds from the offer's expires_at").
 */

/** Offers expired per transaction: keeps row locks and the outbox write short. */
export const EXPIRY_BATCH_SIZE = 500;

export interface ExpiredOffer {
  offerId: string;
  workspaceId: string;
  sequence: number;
  expiresAt: Date;
}

/**
 * Expires, in one set-based statement, due offers of the calling transaction: one given offer
 * (its lock already held), or up to `limit` offers picked with `for update skip locked`, so
 * several workers running at once take disjoint sets and each offer expires exactly once (a row
 * another worker expired meanwhile fails the `status = 'sent'` recheck after its lock).
 */
export async function expireLockedBatch(
  tx: Tx,
  clock: Clock,
  target: { offerId?: string; now: Date; limit: number },
): Promise<ExpiredOffer[]> {
  const pick = target.offerId
    ? tx`select id from offers
          where id = ${target.offerId}::uuid and status = 'sent' and expires_at <= ${target.now}`
    : tx`select id from offers
          where status = 'sent' and expires_at <= ${target.now}
          order by expires_at
          limit ${target.limit}
            for update skip locked`;
  const rows = await tx<{ offer_id: string; workspace_id: string; sequence: number; expires_at: Date }[]>`
    with due as (${pick}),
    expired as (
      update offers o
         set status = 'expired', expired_at = o.expires_at, updated_at = o.expires_at,
             last_sequence = o.last_sequence + 1
        from due
       where o.id = due.id
      returning o.id, o.workspace_id, o.last_sequence, o.expires_at, o.version
    ),
    entries as (
      insert into offer_events (offer_id, sequence, type, occurred_at, version, data)
      select e.id, e.last_sequence, 'expired', e.expires_at, e.version,
             jsonb_build_object('expires_at', api_timestamp(date_trunc('second', e.expires_at)))
        from expired e
      returning offer_id, sequence
    )
    select n.offer_id, e.workspace_id, n.sequence, e.expires_at
      from entries n join expired e on e.id = n.offer_id`;
  const recordedAt = clock.now();
  // One outbox row per expired offer through the outbox's own writer; postgres.js pipelines
  // these statements in the transaction, so the batch costs no round trip per row.
  await Promise.all(
    rows.map((row) =>
      recordWebhookEvent(tx, {
        workspaceId: row.workspace_id,
        type: 'offer.expired',
        offerId: row.offer_id,
        offerSequence: row.sequence,
        occurredAt: row.expires_at,
        recordedAt,
      }),
    ),
  );
  return rows.map((row) => ({
    offerId: row.offer_id,
    workspaceId: row.workspace_id,
    sequence: row.sequence,
    expiresAt: row.expires_at,
  }));
}

/**
 * The expiry job's work: every sent offer whose deadline has passed becomes expired. Runs in
 * batches of EXPIRY_BATCH_SIZE, each its own transaction; safe to run from several workers at
 * once. `limit` caps the offers expired by this call. Returns how many this call expired.
 */
export async function expireDueOffers(sql: Sql, clock: Clock, input: { limit?: number } = {}): Promise<number> {
  const limit = input.limit ?? Number.POSITIVE_INFINITY;
  let total = 0;
  while (total < limit) {
    const batch = Math.min(EXPIRY_BATCH_SIZE, limit - total);
    const now = clock.now();
    const expired = (await sql.begin((tx) => expireLockedBatch(tx, clock, { now, limit: batch }))) as ExpiredOffer[];
    total += expired.length;
    // A short batch means nothing more is due, or the rest is locked by another worker or action.
    if (expired.length < batch) break;
  }
  return total;
}
