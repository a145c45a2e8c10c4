import { describe, expect, it } from 'vitest';
import { DAY } from '../../../src/clock.js';
import type { Queryable, Sql } from '../../../src/db/connect.js';
import { ensureLogPartitions } from '../../../src/jobs/sql/ensureLogPartitions.js';
import { ensureMessagePartitions } from '../../../src/jobs/sql/ensureMessagePartitions.js';
import { claimInput } from '../../../src/webhooks/engine/claim.js';
import { claimStatement } from '../../../src/webhooks/sql/claimDeliveries.js';
import { insertDeliveries } from '../../../src/webhooks/sql/insertDeliveries.js';
import { listDeliveryLog } from '../../../src/webhooks/sql/listDeliveryLog.js';
import { readDelivery } from '../../../src/webhooks/sql/readDelivery.js';
import { explaining, relationsRead, type PlanNode } from '../../support/explain.js';
import { FAIL, OK, deliverDue, endpoint, sentOffer, useEngineFixture, workspace } from './helpers.js';

/**
 * Every read of a message by a delivery (the claim that sends it, the delivery page, the log's
 * page, a new delivery of a message just made) reads one daily partition of webhook_messages
 * (migration 0032), not one per day kept: each carries the message's created_at.
 */
const f = useEngineFixture();

class RollBack extends Error {}

async function rolledBack(sql: Sql, body: (tx: Queryable) => Promise<unknown>): Promise<void> {
  await sql
    .begin(async (tx) => {
      await body(tx);
      throw new RollBack();
    })
    .catch((thrown) => {
      if (!(thrown instanceof RollBack)) throw thrown;
    });
}

describe('reads of a message by its delivery', () => {
  it('read one daily partition of the messages with 30 days of them kept', async () => {
    const now = f.clock.now();
    const days = { firstDay: new Date(now.getTime() - 30 * DAY), lastDay: new Date(now.getTime() + 3 * DAY) };
    await ensureLogPartitions(f.sql, days);
    expect(await ensureMessagePartitions(f.sql, days)).toBe(34);
    const ws = await workspace(f);
    const ep = await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId, 'Sent');
    await deliverDue(f);
    const [done] = await f.sql<{ id: string }[]>`select id from webhook_delivery_log where status = 'succeeded'`;
    f.clock.advance(DAY);
    f.sender.reply(() => FAIL);
    await sentOffer(f, ws.workspaceId, 'Retried');
    await deliverDue(f);
    const [open] = await f.sql<{ id: string }[]>`select id from webhook_queue`;
    // A thousand messages in each day, as a busy database holds (an empty day costs a plan nothing to scan).
    await f.sql`
      insert into webhook_messages (id, workspace_id, type, body, created_at)
      select gen_random_uuid(), ${ws.workspaceId}::uuid, 'offer.sent', '{}', ${days.firstDay}::timestamptz + i * interval '50 seconds'
        from generate_series(0, 34 * 1728 - 1, 2) as i`;
    await f.sql`analyze webhook_messages, webhook_queue, webhook_delivery_log`;

    const plans: PlanNode[] = [];
    const later = new Date(f.clock.now().getTime() + 3_600_000);
    await rolledBack(f.sql, async (tx) => {
      const [row] = await tx<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>`
        explain (analyze, format json) ${claimStatement(tx, claimInput(later, 64, { leaseMs: 60_000, startsPerMinutePerWorkspace: 60, concurrency: 64 }, null))}`;
      plans.push(row!['QUERY PLAN'][0].Plan);
    });
    await readDelivery(explaining(f.sql, plans), { deliveryId: open!.id });
    await readDelivery(explaining(f.sql, plans), { deliveryId: done!.id });
    const filter = { workspaceId: ws.workspaceId, status: null, eventType: null, endpointId: null, since: null, until: null, q: null };
    await listDeliveryLog(explaining(f.sql, plans), { ...filter, after: null, limit: 50 });
    // Rows written before migration 0033 (or by an older worker) carry no offer: each reads its message.
    await rolledBack(f.sql, async (tx) => {
      await tx`update webhook_queue set offer_id = null`;
      await tx`update webhook_delivery_log set offer_id = null`;
      await listDeliveryLog(explaining(tx, plans), { ...filter, after: null, limit: 50 });
    });
    await rolledBack(f.sql, async (tx) => {
      const [made] = await tx<{ id: string }[]>`
        insert into webhook_messages (id, workspace_id, type, body, created_at)
        values (gen_random_uuid(), ${ws.workspaceId}::uuid, 'ping', '{}', ${later}) returning id`;
      await insertDeliveries(explaining(tx, plans), {
        deliveries: [{ messageId: made!.id, endpointId: ep.id }],
        isTest: true,
        maxAttempts: 8,
        maxOpenPerEndpoint: 1000,
        now: later,
      });
    });

    expect(plans).toHaveLength(6);
    // The claim took the open delivery; the log page listed both, each carrying its offer, then
    // without it, each reading its own message's day.
    expect(plans.map((plan) => [...relationsRead(plan, 'webhook_messages')].sort())).toEqual([
      ['webhook_messages_p20260116'],
      ['webhook_messages_p20260116'],
      ['webhook_messages_p20260115'],
      [],
      ['webhook_messages_p20260115', 'webhook_messages_p20260116'],
      ['webhook_messages_p20260116'],
    ]);
  });
});
