import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../../src/clock.js';
import { resendDelivery } from '../../../src/webhooks/management/resend.js';
import { VACUUM_AFTER_DROPPED_ROWS } from '../../../src/webhooks/sql/vacuumOutbox.js';
import { endpointDeliveries } from './log-helpers.js';
import { FAIL, endpoint, manyEvents, statusCounts, useEngineFixture, workspace } from './helpers.js';
import { finishOpenDeliveries } from '../../support/deliveries.js';

// The start rate lifted, as benchmarks do, so a thousand deliveries can be attempted at once.
const f = useEngineFixture({ concurrency: 4000, startsPerMinutePerWorkspace: 1_000_000 });

describe('docs/webhook-delivery.md "Limits" (queues)', () => {
  it('stops turning events into webhooks while 1,000 events of the workspace are waiting, keeping the oldest', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 1003);

    await f.engine.fanOut();

    const [counts] = await f.sql<{ messages: number; max_sequence: number; outbox: number }[]>`
      select (select count(*) from webhook_messages)::int as messages,
             (select max((body::jsonb -> 'data' -> 'event' ->> 'sequence')::int) from webhook_messages) as max_sequence,
             (select count(*) from webhook_outbox)::int as outbox`;
    // Sequences 1 (created) and 2 (sent) precede the bulk entries 3..1005.
    expect(counts).toEqual({ messages: 1000, max_sequence: 1002, outbox: 0 });
  });

  it('vacuums the outbox right after a cut of a flood, not after a small one', async () => {
    // Manual vacuums only (autovacuum counts apart), read fresh by each statement.
    const vacuums = async () =>
      (await f.sql<{ n: number }[]>`select vacuum_count::int as n from pg_stat_user_tables where relname = 'webhook_outbox'`)[0]!.n;
    const ws = await workspace(f);
    await endpoint(f, ws);
    const before = await vacuums();

    await manyEvents(f, ws.workspaceId, 1003);
    await f.engine.fanOut();
    expect(await vacuums()).toBe(before);

    await manyEvents(f, ws.workspaceId, VACUUM_AFTER_DROPPED_ROWS);
    await f.engine.fanOut();
    expect(await vacuums()).toBe(before + 1);
    expect(await f.sql`select 1 from webhook_outbox`).toHaveLength(0);
  });

  it('turns events into webhooks again once waiting ones have been attempted', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 1000);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();
    await manyEvents(f, ws.workspaceId, 1);
    await f.engine.fanOut();

    expect(await f.sql`select 1 from webhook_messages`).toHaveLength(1001);
  });

  it('records deliveries beyond 1,000 open ones of an endpoint as failed without an attempt, resendable later', async () => {
    f.sender.reply(() => FAIL);
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 1000);
    await f.engine.fanOut();
    await f.engine.dispatchOnce();
    expect(await statusCounts(f.sql, ep.id)).toEqual({ pending: 1000 });

    await manyEvents(f, ws.workspaceId, 2);
    await f.engine.fanOut();

    expect(await statusCounts(f.sql, ep.id)).toEqual({ pending: 1000, failed: 2 });
    const failed = await endpointDeliveries(f, ep.id, 'failed');
    expect(failed.map((d) => [d.attempt_count, d.failure_reason])).toEqual([
      [0, 'endpoint_queue_full'],
      [0, 'endpoint_queue_full'],
    ]);
    await expect(resendDelivery(f.manage, { deliveryId: failed[0]!.id, actorId: ws.ownerId })).rejects.toThrow(/1000 open deliveries/);

    await finishOpenDeliveries(f.sql, f.sql`d.status = 'pending' and d.endpoint_id = ${ep.id}::uuid`, { status: 'cancelled', at: f.clock.now() });
    f.clock.advance(MINUTE);
    const resent = await resendDelivery(f.manage, { deliveryId: failed[0]!.id, actorId: ws.ownerId });
    expect(resent).toMatchObject({ status: 'pending', resend_count: 1 });
    await f.engine.dispatchOnce();
    expect(f.sender.sent.at(-1)!.messageId).toBe(failed[0]!.webhook_id);
  });
});
