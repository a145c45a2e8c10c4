import type { Queryable } from '../db/connect.js';
import { overdueSql } from '../domain/offer-state.js';
import type { Offer, OfferEvent, OfferStatus } from './types.js';

/**
 * An Offer and a timeline entry as the read model selects them and shapes them for the wire:
 * the columns every read of an offer selects (offers.ts, offers-by-id.ts), so the API and a
 * webhook body carry the same fields (openapi.yaml "Webhook request"), and the rows made
 * into the wire shapes.
 */

export interface OfferRow {
  id: string;
  title: string;
  status: OfferStatus;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  expires_at: string | null;
  accepted_at: string | null;
  expired_at: string | null;
  version: number | null;
  recipient_name: string | null;
  recipient_company: string | null;
  recipient_email: string | null;
  accepted_by_name: string | null;
  accepted_by_email: string | null;
  value_amount: number;
  currency: string;
  /** created_at as PostgreSQL prints it (UTC, full precision): the keyset position in cursors. */
  position: string;
}

export interface EventRow {
  sequence: number;
  type: string;
  occurred_at: string;
  version: number | null;
  data: Record<string, unknown>;
}

/** Columns of an Offer; `o` is the offers row. Timestamps go through api_timestamp (one wire format). */
export function offerColumns(sql: Queryable, now: Date) {
  const overdue = overdueSql(sql, 'o', now);
  return sql`
    o.id, o.title,
    case when ${overdue} then 'expired' else o.status end as status,
    api_timestamp(o.created_at) as created_at,
    -- The expiry job records the expiry as a change at the deadline (domain/expiry.ts); an
    -- overdue offer the job has not reached yet reads the same, so before and after are equal.
    api_timestamp(case when ${overdue} then greatest(o.updated_at, o.expires_at) else o.updated_at end) as updated_at,
    api_timestamp(o.sent_at) as sent_at,
    api_timestamp(o.expires_at) as expires_at,
    api_timestamp(o.accepted_at) as accepted_at,
    api_timestamp(case
      when o.status = 'expired' then o.expired_at
      when ${overdue} then o.expires_at
    end) as expired_at,
    o.version, o.recipient_name, o.recipient_company, o.recipient_email,
    o.accepted_by_name, o.accepted_by_email, o.value_amount, o.currency,
    o.created_at::text as position`;
}

export function toOffer(row: OfferRow): Offer {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    sent_at: row.sent_at,
    expires_at: row.expires_at,
    accepted_at: row.accepted_at,
    expired_at: row.expired_at,
    version: row.version,
    recipient: { name: row.recipient_name, company: row.recipient_company, email: row.recipient_email },
    accepted_by:
      row.accepted_by_name !== null && row.accepted_by_email !== null
        ? { name: row.accepted_by_name, email: row.accepted_by_email }
        : null,
    value: { amount: row.value_amount, currency: row.currency },
  };
}

export function toOfferEvent(row: EventRow): OfferEvent {
  return { sequence: row.sequence, type: row.type, occurred_at: row.occurred_at, version: row.version, data: row.data };
}
