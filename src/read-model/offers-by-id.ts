import type { Queryable } from '../db/connect.js';
import { rowObjects } from '../db/fixed-shape-rows.js';
import { offerColumns, toOffer } from './offer-rows.js';
import type { Offer, OfferEvent } from './types.js';

/**
 * Many (offer, timeline entry) pairs in one statement, for the webhook engine's fan-out, which
 * prepares a batch of bodies at once: one round trip and one plan instead of two statements per
 * event. Each pair reads exactly what readOffer and readOfferEvent in ./offers.ts return (the same
 * columns, offerColumns, `now` from the caller's Clock, so an overdue sent offer reads as expired: openapi.yaml
 * "Offer states"); test/webhooks/engine/offers-by-id.test.ts holds the
 * two to the same output.
 */

export interface OfferEventKey {
  workspaceId: string;
  offerId: string;
  sequence: number;
}

export interface OfferWithEvent {
  offer: Offer;
  event: OfferEvent;
}

type OfferRow = Parameters<typeof toOffer>[0];

interface Row extends OfferRow {
  ord: number;
  e_sequence: number;
  e_type: string;
  e_occurred_at: string;
  e_version: number | null;
  e_data: Record<string, unknown>;
}

/**
 * The offer and timeline entry of each key, in the keys' order; null where the offer is not in
 * that workspace or the entry does not exist.
 */
export async function readOffersWithEvents(sql: Queryable, keys: OfferEventKey[], now: Date): Promise<(OfferWithEvent | null)[]> {
  if (keys.length === 0) return [];
  // As arrays, then objects of one shape: 24 columns are more than V8 keeps in fast objects.
  const result = await sql`
    select k.ord::int as ord, ${offerColumns(sql, now)},
      e.sequence as e_sequence, e.type as e_type, api_timestamp(e.occurred_at) as e_occurred_at,
      e.version as e_version, e.data as e_data
    from unnest(
      ${keys.map((k) => k.workspaceId)}::uuid[],
      ${keys.map((k) => k.offerId)}::uuid[],
      ${keys.map((k) => k.sequence)}::int[]
    ) with ordinality as k(workspace_id, offer_id, sequence, ord)
    join offers o on o.id = k.offer_id and o.workspace_id = k.workspace_id
    join offer_events e on e.offer_id = k.offer_id and e.sequence = k.sequence`.values();
  const out: (OfferWithEvent | null)[] = keys.map(() => null);
  for (const row of rowObjects<Row>(result)) {
    out[row.ord - 1] = {
      offer: toOffer(row),
      event: { sequence: row.e_sequence, type: row.e_type, occurred_at: row.e_occurred_at, version: row.e_version, data: row.e_data },
    };
  }
  return out;
}
