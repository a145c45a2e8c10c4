import type { Tx } from '../db/connect.js';

/** Timeline types of openapi.yaml "OfferEvent", plus `signed` (the type of offer.signed's entry, openapi.yaml "Webhook events"). */
export const TIMELINE_TYPES = [
  'created',
  'edited',
  'sent',
  'viewed',
  'section_viewed',
  'calculator_used',
  'summary_viewed',
  'code_requested',
  'code_failed',
  'code_verified',
  'signed',
  'accepted',
  'declined',
  'expired',
  'withdrawn',
] as const;
export type TimelineType = (typeof TIMELINE_TYPES)[number];

export interface TimelineEntry {
  type: TimelineType;
  occurredAt: Date;
  /** The offer version the entry refers to; null for entries about the unsent working copy. */
  version: number | null;
  data?: Record<string, string | number>;
  ip?: string | null;
  userAgent?: string | null;
}

/**
 * Appends one entry with sequence = last_sequence + 1 and sets updated_at to the entry's time.
 * The caller holds the offer row lock (`select ... for update`), so concurrent actions on one
 * offer queue up and the timeline stays 1..n without gaps (openapi.yaml "OfferEvent": sequence is a
 * "stable position in the timeline of its offer").
 */
export async function appendTimelineEntry(tx: Tx, offerId: string, entry: TimelineEntry): Promise<number> {
  const [row] = await tx<{ last_sequence: number }[]>`
    update offers
       set last_sequence = last_sequence + 1, updated_at = ${entry.occurredAt}
     where id = ${offerId}::uuid
     returning last_sequence`;
  const sequence = row!.last_sequence;
  await tx`
    insert into offer_events (offer_id, sequence, type, occurred_at, version, data, ip, user_agent)
    values (${offerId}::uuid, ${sequence}, ${entry.type}, ${entry.occurredAt}, ${entry.version},
            ${tx.json(entry.data ?? {})}, ${entry.ip ?? null}::inet, ${entry.userAgent ?? null})`;
  return sequence;
}
