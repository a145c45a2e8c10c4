import { describe, expect, it } from 'vitest';
import { claimBatch } from '../../../src/webhooks/engine/claim.js';
import { endpoint, manyEvents, useEngineFixture, workspace } from './helpers.js';

// A share of 16 attempts in flight per endpoint, so the batch size is what limits a backlog.
const f = useEngineFixture({ concurrency: 64 });

describe('claim batch size (one delivery of each workspace first, then more of those with a backlog)', () => {
  it("fills the batch from one workspace's backlog once every other workspace has its one", async () => {
    const big = await workspace(f);
    await endpoint(f, big, { url: 'https://hooks.test/big' });
    await manyEvents(f, big.workspaceId, 20);
    const small = [];
    for (let i = 0; i < 2; i++) {
      const ws = await workspace(f);
      await endpoint(f, ws, { url: `https://other.test/small-${i}` });
      await manyEvents(f, ws.workspaceId, 1);
      small.push(ws.workspaceId);
    }
    await f.engine.fanOut();

    const batch = await claimBatch(f.deps, 10);

    const perWorkspace = (id: string) => batch.deliveries.filter((d) => d.workspace_id === id).length;
    expect([perWorkspace(big.workspaceId), ...small.map(perWorkspace)]).toEqual([8, 1, 1]);
  });

  it('takes only the first delivery of each workspace when more workspaces are due than the batch holds', async () => {
    for (let i = 0; i < 4; i++) {
      const ws = await workspace(f);
      await endpoint(f, ws, { url: `https://hooks.test/ws-${i}` });
      await manyEvents(f, ws.workspaceId, 5);
    }
    await f.engine.fanOut();

    const batch = await claimBatch(f.deps, 3);

    expect(new Set(batch.deliveries.map((d) => d.workspace_id)).size).toBe(3);
  });
});
