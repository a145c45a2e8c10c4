import { describe, expect, it } from 'vitest';
import type { Sql } from '../../../src/db/connect.js';
import { CLAIM_WORKSPACES } from '../../../src/webhooks/engine/round-robin.js';
import { claimStatement } from '../../../src/webhooks/sql/claimDeliveries.js';
import { claimBatch, claimInput } from '../../../src/webhooks/engine/claim.js';
import { seedTenants } from './many-workspaces.js';
import { FAIL, deliverDue, endpoint, sentOffer, useEngineFixture, workspace } from './helpers.js';

const f = useEngineFixture({ concurrency: 64 });

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

interface ClaimCost {
  claimed: number;
  /** Shared buffers the whole statement touched. */
  buffers: number;
  /** Rows each table's scans returned or filtered out, over all their loops. */
  rowsRead: Record<string, number>;
}

function rowsRead(node: PlanNode, into: Record<string, number> = {}): Record<string, number> {
  const table = node['Relation Name'];
  if (table) into[table] = (into[table] ?? 0) + (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'];
  for (const child of node.Plans ?? []) rowsRead(child, into);
  return into;
}

/** What the claim reads (EXPLAIN ANALYZE, BUFFERS), in a transaction rolled back. */
async function claimCost(sql: Sql, now: Date): Promise<ClaimCost> {
  let measured: ClaimCost = { buffers: 0, claimed: 0, rowsRead: {} };
  await sql
    .begin(async (tx) => {
      const [row] = await tx<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>`
        explain (analyze, buffers, format json) ${claimStatement(tx, claimInput(now, 64, { leaseMs: 60_000, startsPerMinutePerWorkspace: 60, concurrency: 64 }, null))}`;
      const plan = row!['QUERY PLAN'][0].Plan;
      measured = { buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], claimed: plan['Actual Rows'], rowsRead: rowsRead(plan) };
      throw new RollBack();
    })
    .catch((thrown) => {
      if (!(thrown instanceof RollBack)) throw thrown;
    });
  return measured;
}

class RollBack extends Error {}

describe('the claim with many tenants (docs/webhook-delivery.md "Fairness": round-robin over every workspace)', () => {
  it('reads the queue only as far as it takes workspaces, with 20,000 waiting beside 5,000 idle ones as with 200', async () => {
    const now = f.clock.now();
    await seedTenants(f.sql, { waiting: 200, idle: 0, perWorkspace: 2, due: now });
    const few = await claimCost(f.sql, now);
    await seedTenants(f.sql, { waiting: 19_800, idle: 5_000, perWorkspace: 2, due: now });
    const many = await claimCost(f.sql, now);

    expect([few.claimed, many.claimed]).toEqual([64, 64]);
    // The queue is read about as far as the claim takes workspaces (its front, those passed over
    // and those served), not once per waiting workspace: 25,000 rows before.
    expect(many.rowsRead.webhook_workspace_state).toBeLessThan(5 * CLAIM_WORKSPACES);
    // What remains grows only with the depth of the indexes (about 35 times as many buffers before).
    expect(many.buffers).toBeLessThan(2 * few.buffers);
  }, 120_000);

  it('reads the queue only as far as it takes workspaces when 20,000 waiting ones share one queue position', async () => {
    const now = f.clock.now();
    await seedTenants(f.sql, { waiting: 200, idle: 0, perWorkspace: 2, due: now });
    await f.sql`update webhook_workspace_state set queue_position = 7`;
    const few = await claimCost(f.sql, now);
    await seedTenants(f.sql, { waiting: 19_800, idle: 5_000, perWorkspace: 2, due: now });
    // Places share a position only while a worker of the release before runs beside this one
    // (migration 0038); the queue's order is then their entries'. Here every waiting one does.
    await f.sql`update webhook_workspace_state set queue_position = 7`;
    const many = await claimCost(f.sql, now);

    expect([few.claimed, many.claimed]).toEqual([64, 64]);
    // 20,000 rows and a probe of each before: everything at the last taken workspace's position was read.
    expect(many.rowsRead.webhook_workspace_state).toBeLessThan(5 * CLAIM_WORKSPACES);
    expect(many.buffers).toBeLessThan(2 * few.buffers);
  }, 120_000);
});

describe('which workspaces a claim reads (migration 0030: ready ones in queue order)', () => {
  const readiness = async (workspaceId: string) => {
    const [row] = await f.sql<{ ready: boolean; next_due_at: Date | null }[]>`
      select ready, next_due_at from webhook_workspace_state where workspace_id = ${workspaceId}::uuid`;
    return row!;
  };

  it('sets aside a workspace whose only delivery waits out a retry pause, and serves it when the pause ends', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);
    f.sender.reply(() => FAIL);
    await deliverDue(f);
    const [pending] = await f.sql<{ next_attempt_at: Date }[]>`
      select next_attempt_at from webhook_deliveries where workspace_id = ${ws.workspaceId}::uuid and status = 'pending'`;

    expect((await claimBatch(f.deps, 8)).deliveries).toHaveLength(0);
    expect(await readiness(ws.workspaceId)).toEqual({ ready: false, next_due_at: pending!.next_attempt_at });

    f.clock.set(pending!.next_attempt_at);
    expect((await claimBatch(f.deps, 8)).deliveries.map((d) => d.workspace_id)).toEqual([ws.workspaceId]);
  });

  it('makes a set-aside workspace ready again as soon as a new delivery of it is pending', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);
    f.sender.reply(() => FAIL);
    await deliverDue(f);
    await claimBatch(f.deps, 8);
    expect((await readiness(ws.workspaceId)).ready).toBe(false);

    await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();

    expect((await readiness(ws.workspaceId)).ready).toBe(true);
    expect((await claimBatch(f.deps, 8)).deliveries).toHaveLength(1);
  });

  it('leaves a workspace with nothing open out of the ready ones', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);
    await deliverDue(f);
    await claimBatch(f.deps, 8);

    expect(await readiness(ws.workspaceId)).toEqual({ ready: false, next_due_at: null });
  });
});
