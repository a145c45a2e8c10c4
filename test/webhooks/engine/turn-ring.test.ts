import { describe, expect, it } from 'vitest';
import { claimInput } from '../../../src/webhooks/engine/claim.js';
import { CLAIM_WORKSPACES } from '../../../src/webhooks/engine/round-robin.js';
import { claimStatement } from '../../../src/webhooks/sql/claimDeliveries.js';
import { endpoint, manyEvents, sentOffer, useEngineFixture, workspace } from './helpers.js';

/**
 * The round-robin queue as a ring with a cursor (migration 0037, docs/webhook-delivery.md
 * "Fairness"): the claim moves the cursor instead of each served workspace's place, so its write of
 * a workspace's state changes no indexed column, and a workspace that joins is placed just after
 * the cursor, which moves onto it. The order itself is fairness.test.ts's.
 */
const f = useEngineFixture({ concurrency: 64 });

/** The ring's order from just after the cursor, by workspace id. */
const ringOrder = async () =>
  (
    await f.sql<{ workspace_id: string }[]>`
      select s.workspace_id
        from webhook_workspace_state s cross join webhook_round_robin c
       order by (s.queue_position, s.queue_entry) <= (c.queue_position, c.queue_entry), s.queue_position, s.queue_entry`
  ).map((row) => row.workspace_id);

describe('the workspace turn as a ring with a cursor', () => {
  it("serves workspaces with a HOT update of each one's state: no indexed column changes", async () => {
    const served = [];
    for (let i = 0; i < 3; i++) {
      const ws = await workspace(f);
      await endpoint(f, ws);
      await manyEvents(f, ws.workspaceId, 5);
      served.push(ws.workspaceId);
    }
    await f.engine.fanOut();

    const counts = await f.sql.begin(async (tx) => {
      const claimed = await claimStatement(tx, claimInput(f.clock.now(), 64, { leaseMs: 60_000, startsPerMinutePerWorkspace: 60, concurrency: 64 }, null));
      const [stats] = await tx<{ hot: number }[]>`
        select n_tup_hot_upd::int as hot
          from pg_stat_xact_user_tables where relname = 'webhook_workspace_state'`;
      return { claimed: claimed.length, ...stats! };
    });

    expect(counts.claimed).toBe(15);
    // One HOT update of each workspace served (its start-rate window); none while its place was
    // an indexed column the claim moved.
    expect(counts.hot).toBe(3);
  });

  it('moves the cursor onto the last workspace served, so the ring reads those served last', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const ws = await workspace(f);
      await endpoint(f, ws);
      ids.push(ws.workspaceId);
    }
    await manyEvents(f, ids[0]!, 3);
    await manyEvents(f, ids[1]!, 3);
    await f.engine.fanOut();
    const before = await ringOrder();

    await f.engine.dispatchOnce(2);

    const [cursor] = await f.sql<{ workspace_id: string }[]>`
      select s.workspace_id from webhook_round_robin c join webhook_workspace_state s using (queue_position, queue_entry)`;
    expect(cursor!.workspace_id).toBe(ids[1]);
    expect(await ringOrder()).toEqual([ids[2], ids[0], ids[1]]);
    expect(before).toEqual(ids);
  });

  it('brings a workspace that gets work after waiting longer than the next in the ring to just after the cursor', async () => {
    const named = new Map<string, string>();
    for (const name of ['a', 'b', 'c', 'd']) {
      const ws = await workspace(f);
      await endpoint(f, ws, { url: `https://hooks.test/${name}` });
      named.set(name, ws.workspaceId);
      if (name !== 'c') await manyEvents(f, ws.workspaceId, 5);
    }
    await f.engine.fanOut();
    // a, b and d take their turns, one a second; c, with nothing to send, is passed over.
    for (let i = 0; i < 3; i++) {
      f.clock.advance(1_000);
      await f.engine.dispatchOnce(1);
    }
    // c's last turn is its joining, before a's: it has waited longest, though a stands next in the ring.
    await sentOffer(f, named.get('c')!);
    await f.engine.fanOut();
    f.clock.advance(1_000);
    await f.engine.dispatchOnce(1);

    expect(f.sender.sent.map((s) => new URL(s.url).pathname.slice(1))).toEqual(['a', 'b', 'd', 'c']);
  });

  it('gives a workspace coming back its turn before a fleet that joined between two claims', async () => {
    const back = await workspace(f);
    await endpoint(f, back, { url: 'https://hooks.test/back' });
    await sentOffer(f, back.workspaceId);
    await f.engine.fanOut();
    await f.engine.dispatchOnce(1);
    // Thirty workspaces join with no claim between them, each with work, and the claims serve
    // three of them.
    f.clock.advance(60_000);
    for (let i = 0; i < 30; i++) {
      const ws = await workspace(f);
      await endpoint(f, ws, { url: `https://hooks.test/fleet-${i}` });
      await manyEvents(f, ws.workspaceId, 2);
    }
    await f.engine.fanOut();
    for (let i = 0; i < 3; i++) await f.engine.dispatchOnce(1);
    // The first workspace's last turn came before all their joining: it is served next, not
    // behind the 27 the cursor has not reached.
    await sentOffer(f, back.workspaceId);
    await f.engine.fanOut();
    await f.engine.dispatchOnce(1);

    expect(f.sender.sent.map((s) => new URL(s.url).pathname.slice(1))).toEqual(['back', 'fleet-0', 'fleet-1', 'fleet-2', 'back']);
    const [shared] = await f.sql<{ count: number }[]>`
      select count(*)::int as count from (select queue_position from webhook_workspace_state group by 1 having count(*) > 1) t`;
    expect(shared!.count).toBe(0);
  });

  it('places each joining workspace behind all others, and renumbers the ring when places grow long', async () => {
    const first = await workspace(f);
    await endpoint(f, first);
    const second = await workspace(f);
    await endpoint(f, second);
    // As if a claim had served the first last: the joins below split the gap after it each time.
    await f.sql`update webhook_round_robin set (queue_position, queue_entry) =
                  (select queue_position, queue_entry from webhook_workspace_state where workspace_id = ${first.workspaceId}::uuid)`;
    const joined = [];
    for (let i = 0; i < 80; i++) {
      const ws = await workspace(f);
      await endpoint(f, ws);
      joined.push(ws.workspaceId);
    }

    expect(await ringOrder()).toEqual([second.workspaceId, first.workspaceId, ...joined]);
    const [scale] = await f.sql<{ widest: number }[]>`select max(scale(queue_position))::int as widest from webhook_workspace_state`;
    // A join takes a decimal about every third time (1.5, 1.8, 1.9, 1.95, ...): 80 joins would
    // reach about 25; the one that passed 20 renumbered the ring.
    expect(scale!.widest).toBeLessThan(10);
  });
});

describe("the mark's front (migration 0038)", () => {
  it('reads as many ready workspaces as a claim does', async () => {
    const [mark] = await f.sql<{ body: string }[]>`select pg_get_functiondef('webhook_workspace_mark_pending'::regproc) as body`;
    const limits = [...mark!.body.matchAll(/limit (\d+)/g)].map((m) => Number(m[1]));
    expect(limits.filter((n) => n > 1)).toEqual([CLAIM_WORKSPACES, CLAIM_WORKSPACES, CLAIM_WORKSPACES]);
  });
});
