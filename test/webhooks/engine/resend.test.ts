import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../../src/clock.js';
import { DomainError } from '../../../src/domain/errors.js';
import { resendDelivery } from '../../../src/webhooks/management/resend.js';
import { shownDelivery } from './log-helpers.js';
import { showEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { MAX_RESENDS } from '../../../src/webhooks/engine/policy.js';
import { markEndpointPaused } from '../../../src/webhooks/sql/markEndpointPaused.js';
import {
  FAIL,
  OK,
  endpoint,
  memberOf,
  runSchedulesToEnd,
  sentOffer,
  useEngineFixture,
  workspace,
} from './helpers.js';

const f = useEngineFixture();

async function failedDelivery() {
  f.sender.reply(() => FAIL);
  const ws = await workspace(f);
  const ep = await endpoint(f, ws);
  await sentOffer(f, ws.workspaceId);
  await runSchedulesToEnd(f);
  const [row] = await f.sql<{ id: string }[]>`select id from webhook_deliveries where status = 'failed'`;
  f.sender.sent.length = 0;
  return { ws, ep, deliveryId: row!.id };
}

describe('resend from the delivery log', () => {
  it('sends the same webhook-id and the same body bytes as the original attempts', async () => {
    f.sender.reply(() => FAIL);
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);
    await runSchedulesToEnd(f);
    const original = f.sender.sent[0]!;
    const [row] = await f.sql<{ id: string }[]>`select id from webhook_deliveries`;
    f.sender.reply(() => OK);
    f.clock.advance(3 * MINUTE);

    await resendDelivery(f.manage, { deliveryId: row!.id, actorId: ws.ownerId });
    await f.engine.dispatchOnce();

    const resent = f.sender.sent.at(-1)!;
    expect(resent.messageId).toBe(original.messageId);
    expect(resent.body).toBe(original.body);
    expect(resent.attemptAt.getTime()).toBeGreaterThan(original.attemptAt.getTime());
    expect((await shownDelivery(f, row!.id)).status).toBe('succeeded');
  });

  it('makes one attempt, not a new schedule: a failed resend is failed again at once', async () => {
    const { ws, deliveryId } = await failedDelivery();
    await resendDelivery(f.manage, { deliveryId, actorId: ws.ownerId });
    await runSchedulesToEnd(f);

    expect(f.sender.sent).toHaveLength(1);
    expect(await shownDelivery(f, deliveryId)).toMatchObject({ status: 'failed', attempt_count: 9, resend_count: 1 });
  });

  it('allows 5 resends of a delivery and refuses the 6th', async () => {
    const { ws, deliveryId } = await failedDelivery();
    for (let i = 0; i < MAX_RESENDS; i++) {
      await resendDelivery(f.manage, { deliveryId, actorId: ws.ownerId });
      await f.engine.dispatchOnce();
    }
    await expect(resendDelivery(f.manage, { deliveryId, actorId: ws.ownerId })).rejects.toThrow(/already resent 5 times/);
    expect(f.sender.sent).toHaveLength(5);
  });

  it('does not count a failed resend toward pausing the endpoint', async () => {
    const { ws, ep, deliveryId } = await failedDelivery();
    await f.sql`update webhook_endpoints set failure_streak = 4 where id = ${ep.id}::uuid`;
    await resendDelivery(f.manage, { deliveryId, actorId: ws.ownerId });
    await f.engine.dispatchOnce();

    expect(await showEndpoint(f.manage, { endpointId: ep.id })).toMatchObject({ state: 'active', failure_streak: 4 });
  });

  it('refuses to resend a delivery that is still pending', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId);
    await f.engine.fanOut();
    const [row] = await f.sql<{ id: string }[]>`select id from webhook_deliveries`;

    await expect(resendDelivery(f.manage, { deliveryId: row!.id, actorId: ws.ownerId })).rejects.toThrow(/still pending/);
  });

  it('refuses to resend to a paused endpoint', async () => {
    const { ws, ep, deliveryId } = await failedDelivery();
    await markEndpointPaused(f.sql, { endpointId: ep.id, now: f.clock.now() });
    await expect(resendDelivery(f.manage, { deliveryId, actorId: ws.ownerId })).rejects.toThrow(/paused/);
  });

  it('refuses a member and accepts an admin', async () => {
    const { ws, deliveryId } = await failedDelivery();
    const member = await memberOf(f, ws.workspaceId, 'member');
    const admin = await memberOf(f, ws.workspaceId, 'admin');

    const refused = await resendDelivery(f.manage, { deliveryId, actorId: member }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('forbidden');
    await expect(resendDelivery(f.manage, { deliveryId, actorId: admin })).resolves.toMatchObject({ status: 'pending' });
  });
});
