import type { Clock } from '../../clock.js';
import type { Sql } from '../../db/connect.js';
import { invalidTransition } from '../errors.js';
import { expireLockedBatch } from '../expiry.js';
import { requireStatus } from '../offer-state.js';
import { onOffer, result, type ActionResult, type AtInput } from './common.js';

/** Expiry of one offer (the CLI's `offer expire`); the job's bulk form is expireDueOffers. */

/**
 * Expires one sent offer whose deadline has passed at `at` (default now). The entry itself is
 * dated at the deadline, like the job's (see expiry.ts).
 */
export async function expireOffer(sql: Sql, clock: Clock, input: AtInput): Promise<ActionResult> {
  return onOffer(sql, clock, input, async (tx, offer, at) => {
    if (offer.status === 'sent' && offer.expiresAt!.getTime() > at.getTime()) {
      throw invalidTransition(`cannot expire offer ${offer.id}: its deadline ${offer.expiresAt!.toISOString()} has not passed`);
    }
    requireStatus(offer, at, ['expired'], 'expire');
    if (offer.status !== 'sent') throw invalidTransition(`offer ${offer.id} is already expired`);
    const [expired] = await expireLockedBatch(tx, clock, { offerId: offer.id, now: at, limit: 1 });
    return result(offer, 'expired', offer.version, expired!.sequence);
  });
}
