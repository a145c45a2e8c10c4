import { describe, expect, it } from 'vitest';
import { FANOUT_BATCH_SIZE } from '../../../src/webhooks/policy.js';
import { endpoint, manyEvents, sentOffer, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture({ concurrency: 8 });

const outboxRows = async () => (await f.sql<{ n: number }[]>`select count(*)::int as n from webhook_outbox`)[0]!.n;

describe('worker step (one fan-out batch, then a claim)', () => {
  it("attempts another workspace's due delivery in the next step while one workspace's backlog is still being fanned out", async () => {
    const small = await workspace(f);
    await endpoint(f, small, { url: 'https://other.test/small' });
    await sentOffer(f, small.workspaceId);
    await f.engine.step(0);
    const big = await workspace(f);
    await endpoint(f, big, { url: 'https://hooks.test/big' });
    await manyEvents(f, big.workspaceId, 4 * FANOUT_BATCH_SIZE);

    const { claimed } = await f.engine.step(8);
    await Promise.all(claimed.deliveries.map((d) => f.engine.attempt(d, claimed.customOfferDomains)));

    expect(f.sender.sent.map((s) => s.url)).toContain('https://other.test/small');
    expect(await outboxRows()).toBeGreaterThan(0);
  });

  it('fans out at most one batch per step and says whether more is due', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, FANOUT_BATCH_SIZE + 50);

    const first = await f.engine.step(0);
    const second = await f.engine.step(0);

    expect([first.fanOut.taken, first.moreToFanOut]).toEqual([FANOUT_BATCH_SIZE, true]);
    expect([second.fanOut.taken, second.moreToFanOut]).toEqual([50, false]);
    expect(first.claimed.deliveries).toEqual([]);
  });

  it('claims deliveries fanned out in the same step', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);

    const { claimed } = await f.engine.step(8);

    expect(claimed.deliveries).toHaveLength(1);
  });
});
