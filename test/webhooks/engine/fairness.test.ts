import { describe, expect, it } from 'vitest';
import { claimBatch } from '../../../src/webhooks/engine/claim.js';
import { endpoint, manyEvents, sentOffer, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture({ concurrency: 8 });

/** Which workspace each send went to, by the path of its endpoint's URL. */
const sentTo = () => f.sender.sent.map((s) => new URL(s.url).pathname.slice(1));

describe('fairness (docs/webhook-delivery.md "Fairness": round-robin, longest-waiting first)', () => {
  it('serves small workspaces between the sends of one with many waiting events', async () => {
    const big = await workspace(f);
    await endpoint(f, big, { url: 'https://hooks.test/big' });
    const small = [];
    for (const name of ['s1', 's2', 's3']) {
      const ws = await workspace(f);
      await endpoint(f, ws, { url: `https://hooks.test/${name}` });
      small.push(ws);
    }
    await manyEvents(f, big.workspaceId, 30);
    for (const ws of small) await manyEvents(f, ws.workspaceId, 2);
    await f.engine.fanOut();

    for (let i = 0; i < 10; i++) await f.engine.dispatchOnce(1);

    expect(sentTo()).toEqual(['big', 's1', 's2', 's3', 'big', 's1', 's2', 's3', 'big', 'big']);
  });

  it('interleaves workspaces within one batch: one of each first, then a second of each', async () => {
    const big = await workspace(f);
    await endpoint(f, big, { url: 'https://hooks.test/big' });
    const small = await workspace(f);
    await endpoint(f, small, { url: 'https://other.test/small' });
    await manyEvents(f, big.workspaceId, 20);
    await manyEvents(f, small.workspaceId, 1);
    await f.engine.fanOut();

    const batch = await claimBatch(f.deps, 2);

    expect(batch.deliveries.map((d) => d.workspace_id).sort()).toEqual([big.workspaceId, small.workspaceId].sort());
  });

  it('puts a workspace that sets up its first endpoint behind those already waiting', async () => {
    const a = await workspace(f);
    const b = await workspace(f);
    await endpoint(f, a, { url: 'https://hooks.test/a' });
    await endpoint(f, b, { url: 'https://hooks.test/b' });
    await manyEvents(f, a.workspaceId, 3);
    await manyEvents(f, b.workspaceId, 3);
    await f.engine.fanOut();
    await f.engine.dispatchOnce(1); // a served, moves behind b

    const c = await workspace(f);
    await endpoint(f, c, { url: 'https://hooks.test/c' });
    await sentOffer(f, c.workspaceId);
    await f.engine.fanOut();
    for (let i = 0; i < 3; i++) await f.engine.dispatchOnce(1);

    expect(sentTo()).toEqual(['a', 'b', 'a', 'c']);
  });

  it('gives a slow endpoint at most its share of attempts in flight, so other endpoints keep flowing', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws, { url: 'https://hooks.test/slow' });
    await endpoint(f, ws, { url: 'https://other.test/fine', events: ['offer.withdrawn'] });
    await manyEvents(f, ws.workspaceId, 10);
    await f.engine.fanOut();

    const first = await claimBatch(f.deps, 8);
    // The slow endpoint's attempts are still in flight (leases held) when the next claim runs.
    const offerId = await sentOffer(f, ws.workspaceId, 'Withdrawn');
    await f.sql`update webhook_outbox set type = 'offer.withdrawn' where offer_id = ${offerId}::uuid`;
    await f.engine.fanOut();
    const second = await claimBatch(f.deps, 8);

    expect(first.deliveries).toHaveLength(2); // share = concurrency 8 / 4
    expect(second.deliveries.map((d) => d.url)).toEqual(['https://other.test/fine']);
  });
});
