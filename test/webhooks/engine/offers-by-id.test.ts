import { describe, expect, it } from 'vitest';
import { DAY } from '../../../src/clock.js';
import { createOffer } from '../../../src/domain/offer-actions.js';
import { readOffer, readOfferEvent } from '../../../src/read-model/offers.js';
import { readOffersWithEvents } from '../../../src/read-model/offers-by-id.js';
import { sentOffer, workspace, useEngineFixture } from './helpers.js';

const f = useEngineFixture();

describe('readOffersWithEvents (the fan-out batch read)', () => {
  it('returns, in the keys order, exactly what readOffer and readOfferEvent return, null for a foreign or missing pair', async () => {
    const ws = await workspace(f);
    const other = await workspace(f);
    const draft = await createOffer(f.sql, f.clock, { workspaceId: ws.workspaceId, title: 'Draft' });
    const overdue = await sentOffer(f, other.workspaceId, 'Overdue');
    // Past the deadline, before the expiry job: both reads report the overdue offer as expired.
    f.clock.advance(15 * DAY);
    const sent = await sentOffer(f, ws.workspaceId, 'Sent');
    const now = f.clock.now();

    const keys = [
      { workspaceId: other.workspaceId, offerId: overdue, sequence: 2 },
      { workspaceId: ws.workspaceId, offerId: draft.id, sequence: 1 },
      { workspaceId: ws.workspaceId, offerId: sent, sequence: 2 },
      { workspaceId: other.workspaceId, offerId: sent, sequence: 2 },
      { workspaceId: ws.workspaceId, offerId: sent, sequence: 9 },
    ];
    const batch = await readOffersWithEvents(f.sql, keys, now);

    const one = await Promise.all(
      keys.map(async (k) => {
        const offer = await readOffer(f.sql, { workspaceId: k.workspaceId, offerId: k.offerId, now });
        const event = await readOfferEvent(f.sql, { offerId: k.offerId, sequence: k.sequence });
        return offer && event ? { offer, event } : null;
      }),
    );
    expect(batch).toEqual(one);
    expect(batch.map((r) => r?.offer.status ?? null)).toEqual(['expired', 'draft', 'sent', null, null]);
    expect(await readOffersWithEvents(f.sql, [], now)).toEqual([]);
  });
});
