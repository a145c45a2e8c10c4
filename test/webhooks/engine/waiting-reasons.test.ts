import { describe, expect, it } from 'vitest';
import { SECOND } from '../../../src/clock.js';
import { listDeliveryLogPage, type DeliveryLogView } from '../../../src/webhooks/management/delivery-log.js';
import { FAIL, deliverDue, endpoint, sentOffer, useEngineFixture, workspace } from './helpers.js';
import { logDeps } from './log-helpers.js';

/**
 * Why a waiting delivery waits, each case made by the real engine (fan-out, claim, attempt) on a
 * manual clock. Settings: 3 starts per minute per workspace; concurrency 8, so an endpoint holds
 * at most 2 attempts in flight; leases of 30 s.
 */
const f = useEngineFixture({ startsPerMinutePerWorkspace: 3, concurrency: 8, leaseMs: 30_000 });

async function log(workspaceId: string): Promise<DeliveryLogView[]> {
  const { rows } = await listDeliveryLogPage(logDeps(f), { workspaceId, after: null, limit: 50 });
  return rows.map((row) => row.view);
}

function reasons(views: DeliveryLogView[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of views) {
    const key = `${v.status}:${v.waiting_reason}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function fiveDueDeliveries() {
  const ws = await workspace(f);
  await endpoint(f, ws);
  for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
  await f.engine.fanOut();
  return ws;
}

describe('why a waiting delivery waits', () => {
  it('retry_pause: after a failed attempt, until the next attempt is due', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    f.sender.reply(() => FAIL);
    await sentOffer(f, ws.workspaceId);
    await deliverDue(f);
    const [view] = await log(ws.workspaceId);
    expect(view).toMatchObject({ status: 'pending', attempt_count: 1, waiting_reason: 'retry_pause' });
    f.clock.set(new Date(view!.next_attempt_at!));
    expect((await log(ws.workspaceId))[0]!.waiting_reason).toBe('turn');
  });

  it('turn: due, with nothing blocking it, before any worker has claimed it', async () => {
    const ws = await fiveDueDeliveries();
    expect(reasons(await log(ws.workspaceId))).toEqual({ 'pending:turn': 5 });
  });

  it("endpoint_cap: due, while the endpoint holds its share of attempts in flight", async () => {
    const ws = await fiveDueDeliveries();
    const step = await f.engine.step(8);
    expect(step.claimed.deliveries).toHaveLength(2);
    expect(reasons(await log(ws.workspaceId))).toEqual({ 'sending:null': 2, 'pending:endpoint_cap': 3 });
    // Once the attempts are done, the remaining three wait only for their turn.
    for (const claimed of step.claimed.deliveries) await f.engine.attempt(claimed, step.claimed.customOfferDomains);
    expect(reasons(await log(ws.workspaceId))).toEqual({ 'succeeded:null': 2, 'pending:turn': 3 });
  });

  it("workspace_start_rate: due, while the workspace's starts of this minute are used up", async () => {
    const ws = await fiveDueDeliveries();
    await f.engine.dispatchOnce();
    await f.engine.dispatchOnce();
    // 2 + 1 attempts started: the third claim had room for one more this minute.
    expect(reasons(await log(ws.workspaceId))).toEqual({ 'succeeded:null': 3, 'pending:workspace_start_rate': 2 });
    expect(await f.engine.dispatchOnce()).toEqual([]);
    f.clock.advance(60 * SECOND);
    expect(reasons(await log(ws.workspaceId))).toEqual({ 'succeeded:null': 3, 'pending:turn': 2 });
  });

  it('an attempt whose worker died is due again when its lease passes, and says why it waits', async () => {
    const ws = await fiveDueDeliveries();
    const step = await f.engine.step(1);
    expect(step.claimed.deliveries).toHaveLength(1);
    const [claimed] = step.claimed.deliveries;
    const before = (await log(ws.workspaceId)).find((v) => v.id === claimed!.id)!;
    expect(before).toMatchObject({ status: 'sending', waiting_reason: null, next_attempt_at: null });
    f.clock.advance(31 * SECOND);
    const after = (await log(ws.workspaceId)).find((v) => v.id === claimed!.id)!;
    expect(after).toMatchObject({ status: 'sending', waiting_reason: 'turn' });
    expect(after.next_attempt_at).not.toBeNull();
  });

  it('finished deliveries do not wait', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);
    await deliverDue(f);
    expect(await log(ws.workspaceId)).toMatchObject([{ status: 'succeeded', waiting_reason: null, next_attempt_at: null }]);
  });
});
