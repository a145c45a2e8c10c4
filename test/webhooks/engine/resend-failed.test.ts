import { describe, expect, it } from 'vitest';
import { HOUR } from '../../../src/clock.js';
import { DomainError } from '../../../src/domain/errors.js';
import { MAX_RESENDS } from '../../../src/webhooks/engine/policy.js';
import { previewResendFailed, resendDelivery, resendFailed } from '../../../src/webhooks/management/resend.js';
import { markEndpointPaused } from '../../../src/webhooks/sql/markEndpointPaused.js';
import { seedDeliveryLog } from '../../support/seed/delivery-log.js';
import { FAIL, OK, endpoint, memberOf, runSchedulesToEnd, sentOffer, statusCounts, useEngineFixture, workspace } from './helpers.js';
import { logDeps } from './log-helpers.js';

const f = useEngineFixture();

/** An endpoint that was down: `count` deliveries failed finally, created an hour apart. */
async function downEndpoint(count: number) {
  const ws = await workspace(f);
  const ep = await endpoint(f, ws);
  f.sender.reply(() => FAIL);
  const created: Date[] = [];
  for (let i = 0; i < count; i++) {
    created.push(f.clock.now());
    await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    await f.engine.fanOut();
    f.clock.advance(HOUR);
  }
  await runSchedulesToEnd(f);
  // Four final failures: one short of the automatic pause.
  expect(await statusCounts(f.sql, ep.id)).toEqual({ failed: count });
  f.sender.sent.length = 0;
  f.sender.reply(() => OK);
  return { ws, ep, created };
}

describe('resend failed since a time', () => {
  it('previews exactly the deliveries it then resends, each one more attempt of the same message', async () => {
    const { ws, ep, created } = await downEndpoint(4);
    const input = { workspaceId: ws.workspaceId, endpointId: ep.id, since: created[1]! };
    const preview = await previewResendFailed(logDeps(f), input);
    expect(preview).toEqual({ count: 3, skipped_limit: 0 });

    const result = await resendFailed(logDeps(f), { ...input, actorId: ws.ownerId });
    expect(result).toEqual({ resent: preview.count, skipped_limit: 0 });
    await runSchedulesToEnd(f);
    expect(f.sender.sent).toHaveLength(3);
    expect(await statusCounts(f.sql, ep.id)).toEqual({ failed: 1, succeeded: 3 });
    const rows = await f.sql<{ resend_count: number; attempt_count: number }[]>`
      select resend_count, attempt_count from webhook_deliveries where endpoint_id = ${ep.id}::uuid and status = 'succeeded'`;
    expect(rows.every((r) => r.resend_count === 1 && r.attempt_count === 9)).toBe(true);
    expect(await previewResendFailed(logDeps(f), input)).toEqual({ count: 0, skipped_limit: 0 });
  });

  it('keeps each delivery within its own limit of 5 resends and counts those skipped', async () => {
    const { ws, ep, created } = await downEndpoint(2);
    const [first] = await f.sql<{ id: string }[]>`
      select id from webhook_deliveries where endpoint_id = ${ep.id}::uuid order by created_at limit 1`;
    f.sender.reply(() => FAIL);
    for (let i = 0; i < MAX_RESENDS; i++) {
      await resendDelivery(f.manage, { deliveryId: first!.id, actorId: ws.ownerId });
      await f.engine.dispatchOnce();
    }
    const input = { workspaceId: ws.workspaceId, endpointId: ep.id, since: created[0]! };
    expect(await previewResendFailed(logDeps(f), input)).toEqual({ count: 1, skipped_limit: 1 });
    expect(await resendFailed(logDeps(f), { ...input, actorId: ws.ownerId })).toEqual({ resent: 1, skipped_limit: 1 });
    const [limited] = await f.sql<{ resend_count: number; status: string }[]>`
      select resend_count, status from webhook_deliveries where id = ${first!.id}::uuid`;
    expect(limited).toEqual({ resend_count: MAX_RESENDS, status: 'failed' });
  });

  it('writes one audit entry with the counts', async () => {
    const { ws, ep, created } = await downEndpoint(2);
    await resendFailed(logDeps(f), { workspaceId: ws.workspaceId, endpointId: ep.id, since: created[0]!, actorId: ws.ownerId });
    const entries = await f.sql<{ action: string; target_id: string; details: Record<string, unknown> }[]>`
      select action, target_id, details from audit_entries where action = 'delivery.resent_failed'`;
    expect(entries).toEqual([{ action: 'delivery.resent_failed', target_id: ep.id, details: { since: created[0]!.toISOString(), resent: 2, skipped_limit: 0 } }]);
  });

  it('resends nothing when the resends would not fit under the 1,000 open deliveries', async () => {
    const { ws, ep, created } = await downEndpoint(2);
    await seedDeliveryLog(f.sql, { workspaceId: ws.workspaceId, endpointIds: [ep.id], count: 999, pending: 999, now: f.clock.now() });
    const input = { workspaceId: ws.workspaceId, endpointId: ep.id, since: created[0]!, actorId: ws.ownerId };
    await expect(resendFailed(logDeps(f), input)).rejects.toMatchObject({
      code: 'limit_reached',
      errorCode: 'OD_ERR_OPEN_DELIVERIES_PER_ENDPOINT',
      message: /room for 1 more/,
    });
    expect((await statusCounts(f.sql, ep.id)).failed).toBe(2);
  });

  it('refuses a paused endpoint, a member, and an endpoint of another workspace', async () => {
    const { ws, ep, created } = await downEndpoint(1);
    const since = created[0]!;
    const member = await memberOf(f, ws.workspaceId, 'member');
    await expect(resendFailed(logDeps(f), { workspaceId: ws.workspaceId, endpointId: ep.id, since, actorId: member })).rejects.toMatchObject({
      code: 'forbidden',
    });
    const other = await workspace(f);
    await expect(resendFailed(logDeps(f), { workspaceId: other.workspaceId, endpointId: ep.id, since, actorId: other.ownerId })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(previewResendFailed(logDeps(f), { workspaceId: other.workspaceId, endpointId: ep.id, since })).rejects.toBeInstanceOf(DomainError);
    await markEndpointPaused(f.sql, { endpointId: ep.id, now: f.clock.now() });
    await expect(resendFailed(logDeps(f), { workspaceId: ws.workspaceId, endpointId: ep.id, since, actorId: ws.ownerId })).rejects.toThrow(/paused/);
    expect(await statusCounts(f.sql, ep.id)).toEqual({ failed: 1 });
  });
});
