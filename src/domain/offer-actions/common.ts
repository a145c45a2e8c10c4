import type { Clock } from '../../clock.js';
import type { Sql, Tx } from '../../db/connect.js';
import { recordWebhookEvent, type OfferWebhookType } from '../outbox.js';
import { lockOffer, requireNotBeforeLastEntry, type LockedOffer, type OfferStatus } from '../offer-state.js';
import { appendTimelineEntry, type TimelineEntry } from '../timeline.js';
import { actionTime, requireUuid } from '../validate.js';

/**
 * What every action on an offer shares: one transaction holding the offer's row lock, the
 * action's time checked against the offer's last timeline entry, and the timeline entry written
 * with its outbox row (openapi.yaml "Offer states"; openapi.yaml "Webhook events").
 */

export interface ActionResult {
  offerId: string;
  status: OfferStatus;
  version: number | null;
  /** Sequence of the timeline entry this action appended. */
  sequence: number;
}

export interface AtInput {
  offerId: string;
  at?: Date;
}

export const MAX_SIGNERS = 20;
/** A section view longer than a day is a tab left open, not a reading time. */
export const MAX_SECTION_VIEW_MS = 24 * 60 * 60 * 1000;

/** Runs `act` in one transaction holding the offer's row lock, with `at` resolved and checked. */
export async function onOffer<T>(
  sql: Sql,
  clock: Clock,
  input: AtInput,
  act: (tx: Tx, offer: LockedOffer, at: Date) => Promise<T>,
): Promise<T> {
  const offerId = requireUuid(input.offerId, `offer ${String(input.offerId)}`);
  const at = actionTime(clock, input.at);
  return (await sql.begin(async (tx) => {
    const offer = await lockOffer(tx, offerId);
    requireNotBeforeLastEntry(offer, at);
    return act(tx, offer, at);
  })) as T;
}

/** Appends the entry and, when the action has a webhook type, its outbox row in the same transaction. */
export async function record(
  tx: Tx,
  clock: Clock,
  offer: LockedOffer,
  entry: TimelineEntry,
  webhook: OfferWebhookType | null,
): Promise<number> {
  const sequence = await appendTimelineEntry(tx, offer.id, entry);
  if (webhook) {
    await recordWebhookEvent(tx, {
      workspaceId: offer.workspaceId,
      type: webhook,
      offerId: offer.id,
      offerSequence: sequence,
      occurredAt: entry.occurredAt,
      recordedAt: clock.now(),
    });
  }
  return sequence;
}

export function result(offer: LockedOffer, status: OfferStatus, version: number | null, sequence: number): ActionResult {
  return { offerId: offer.id, status, version, sequence };
}
