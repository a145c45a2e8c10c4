import { describe, expect, it } from 'vitest';
import { FANOUT_BATCH_SIZE, FANOUT_ROWS_PER_WORKSPACE } from '../../../src/webhooks/engine/round-robin.js';
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

  it('fans out at most one batch per step, at most one share per workspace, and says whether more is due', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, FANOUT_ROWS_PER_WORKSPACE + 10);

    const first = await f.engine.step(0);
    const second = await f.engine.step(0);

    expect([first.fanOut.taken, first.moreToFanOut]).toEqual([FANOUT_ROWS_PER_WORKSPACE, true]);
    expect([second.fanOut.taken, second.moreToFanOut]).toEqual([10, false]);
    expect(first.claimed.deliveries).toEqual([]);
  });

  it('fills a batch from several workspaces', async () => {
    const count = Math.ceil(FANOUT_BATCH_SIZE / FANOUT_ROWS_PER_WORKSPACE) + 1;
    for (let i = 0; i < count; i++) {
      const ws = await workspace(f);
      await endpoint(f, ws);
      await manyEvents(f, ws.workspaceId, FANOUT_ROWS_PER_WORKSPACE);
    }
    const first = await f.engine.step(0);
    expect([first.fanOut.taken, first.moreToFanOut]).toEqual([FANOUT_BATCH_SIZE, true]);
  });

  it("fans out a workspace's new event in the next step, behind another workspace's older backlog", async () => {
    const big = await workspace(f);
    await endpoint(f, big, { url: 'https://hooks.test/big' });
    await manyEvents(f, big.workspaceId, 4 * FANOUT_BATCH_SIZE);
    f.clock.advance(1000);
    const small = await workspace(f);
    await endpoint(f, small, { url: 'https://other.test/small' });
    await sentOffer(f, small.workspaceId);

    await f.engine.step(0);

    const [row] = await f.sql<{ n: number }[]>`
      select count(*)::int as n from webhook_messages m where m.workspace_id = ${small.workspaceId}::uuid`;
    expect(row!.n).toBe(1);
    expect(await outboxRows()).toBeGreaterThan(0);
  });

  it('claims deliveries fanned out in the same step', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);

    const { claimed } = await f.engine.step(8);

    expect(claimed.deliveries).toHaveLength(1);
  });
});
