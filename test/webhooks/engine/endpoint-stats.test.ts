import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../../src/clock.js';
import { endpointStats } from '../../../src/webhooks/management/endpoint-stats.js';
import { resumeEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { FAIL, OK, deliverDue, endpoint, runSchedulesToEnd, sentOffer, useEngineFixture, workspace } from './helpers.js';
import { finishOpenDeliveries } from '../../support/deliveries.js';

const f = useEngineFixture();

/** Ends the flaky endpoint's retries, keeping their attempts, so each offer is one hour's traffic. */
async function cancelOpen() {
  await finishOpenDeliveries(f.sql, f.sql`d.status = 'pending'`, { status: 'cancelled', at: f.clock.now() });
}

describe('endpoint statistics over the last 24 hours', () => {
  it('counts attempts and successes per hour, 24 buckets oldest first, for every endpoint at once', async () => {
    const ws = await workspace(f);
    const up = await endpoint(f, ws, { url: 'https://hooks.test/up' });
    const flaky = await endpoint(f, ws, { url: 'https://other.test/flaky' });
    const idle = await endpoint(f, ws, { url: 'https://a.hooks.test/idle', events: ['offer.expired'] });
    f.sender.reply((request) => (request.url.includes('flaky') ? FAIL : OK));
    // 30 hours ago: outside the window. Then 20 hours ago, and 3 hours ago (plus a retry 1 minute later).
    const start = f.clock.now().getTime();
    await sentOffer(f, ws.workspaceId, 'Old');
    await deliverDue(f);
    f.clock.set(new Date(start + 10 * HOUR + 10 * MINUTE));
    await cancelOpen();
    await sentOffer(f, ws.workspaceId, 'Morning');
    await deliverDue(f);
    f.clock.set(new Date(start + 27 * HOUR + 10 * MINUTE));
    await cancelOpen();
    await sentOffer(f, ws.workspaceId, 'Recent');
    await deliverDue(f);
    f.clock.advance(MINUTE);
    await deliverDue(f);
    f.clock.set(new Date(start + 30 * HOUR + 20 * MINUTE));

    const stats = await endpointStats(f.sql, { endpointIds: [up.id, flaky.id, idle.id], now: f.clock.now() });

    const hours = stats.get(up.id)!.stats.hourly.map((h) => h.hour);
    expect(hours).toHaveLength(24);
    const currentHour = Math.floor(f.clock.now().getTime() / HOUR) * HOUR;
    expect(hours[0]).toBe(new Date(currentHour - 23 * HOUR).toISOString());
    expect(hours[23]).toBe(new Date(currentHour).toISOString());
    const nonEmpty = (id: string) =>
      stats.get(id)!.stats.hourly.filter((h) => h.attempts > 0).map((h) => [h.hour, h.attempts, h.succeeded]);
    const hourOf = (offset: number) => new Date(Math.floor((start + offset) / HOUR) * HOUR).toISOString();
    expect(nonEmpty(up.id)).toEqual([
      [hourOf(10 * HOUR), 1, 1],
      [hourOf(27 * HOUR), 1, 1],
    ]);
    expect(nonEmpty(flaky.id)).toEqual([
      [hourOf(10 * HOUR), 1, 0],
      [hourOf(27 * HOUR), 2, 0],
    ]);
    expect(stats.get(up.id)!.stats).toMatchObject({ success_rate_24h: 1, attempts_24h: 2 });
    expect(stats.get(flaky.id)!.stats).toMatchObject({ success_rate_24h: 0, attempts_24h: 3 });
    expect(stats.get(idle.id)!.stats).toMatchObject({ success_rate_24h: null, attempts_24h: 0 });
    expect(stats.get(idle.id)!.stats.hourly.every((h) => h.attempts === 0 && h.succeeded === 0)).toBe(true);
  });

  it('says an endpoint paused after 5 final failures was paused for failures, and nothing once resumed', async () => {
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    f.sender.reply(() => FAIL);
    for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    await runSchedulesToEnd(f);
    expect((await endpointStats(f.sql, { endpointIds: [ep.id], now: f.clock.now() })).get(ep.id)!.paused_reason).toBe('failures');
    await resumeEndpoint(f.manage, { endpointId: ep.id, actorId: ws.ownerId });
    expect((await endpointStats(f.sql, { endpointIds: [ep.id], now: f.clock.now() })).get(ep.id)!.paused_reason).toBeNull();
  });
});
