import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../../src/clock.js';
import type { Sql } from '../../../src/db/connect.js';
import { DELIVERY_LOG_RETENTION_MS } from '../../../src/jobs/policy.js';
import { deleteUnusedMessages, type MessageCursor } from '../../../src/jobs/sql/deleteExpiredLog.js';
import { dropExpiredPartitions } from '../../../src/jobs/sql/dropExpiredPartitions.js';
import { ensureLogPartitions } from '../../../src/jobs/sql/ensureLogPartitions.js';
import { resendDelivery } from '../../../src/webhooks/management/resend.js';
import { shownDelivery } from './log-helpers.js';
import { FAIL, OK, deliverDue, endpoint, runSchedulesToEnd, sentOffer, useEngineFixture, workspace } from './helpers.js';

/**
 * The delivery log and the attempts by UTC day (migration 0020), on the controlled clock: the
 * periodic job makes the days ahead, retention drops a day once it ended 30 days ago (docs/delivery-log.md
 * "Retention"), a resend moves a delivery across days,
 * a message stays while any delivery refers to it, and a row of a day without a partition waits
 * in the default one, never lost.
 */
const f = useEngineFixture();

/** The partition that holds the delivery's log row. */
async function logPartitionOf(sql: Sql, deliveryId: string): Promise<string | undefined> {
  const [row] = await sql<{ part: string }[]>`select tableoid::regclass::text as part from webhook_delivery_log where id = ${deliveryId}::uuid`;
  return row?.part;
}

async function exists(sql: Sql, table: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`select to_regclass(${table}) is not null as found`;
  return row!.found;
}

describe('daily partitions of the delivery log and the attempts', () => {
  it('are made for the next 3 days by the periodic job, by the clock, once each', async () => {
    // START is 2026-01-15 10:00 UTC.
    expect(await f.engine.runDueJobs()).toContain('webhook-log-partitions');
    for (const table of ['webhook_delivery_log', 'webhook_attempts']) {
      expect(await exists(f.sql, `${table}_p20260115`), 'today is not made: its rows stay in the default partition').toBe(false);
      for (const day of ['20260116', '20260117', '20260118']) expect(await exists(f.sql, `${table}_p${day}`)).toBe(true);
      expect(await exists(f.sql, `${table}_p20260119`)).toBe(false);
    }
    f.clock.advance(DAY);
    expect(await f.engine.runDueJobs()).toContain('webhook-log-partitions');
    expect(await exists(f.sql, 'webhook_delivery_log_p20260119')).toBe(true);
    expect(await exists(f.sql, 'webhook_attempts_p20260119')).toBe(true);
    const day = new Date('2026-01-17T00:00:00.000Z');
    expect(await ensureLogPartitions(f.sql, { firstDay: day, lastDay: new Date(day.getTime() + 2 * DAY) })).toBe(0);
  });

  it('hold a resent delivery in the day it ended last: the same id and webhook-id move out of the first day', async () => {
    await f.engine.runDueJobs();
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId, 'Failing');
    f.sender.reply(() => FAIL);
    await runSchedulesToEnd(f);
    const [failed] = await f.sql<{ id: string; message_id: string; finished_at: Date }[]>`
      select id, message_id, finished_at from webhook_deliveries where status = 'failed'`;
    // 23 h 36 min after the first attempt at 10:00 on the 15th.
    expect(failed!.finished_at.toISOString()).toBe('2026-01-16T09:36:00.000Z');
    expect(await logPartitionOf(f.sql, failed!.id)).toBe('webhook_delivery_log_p20260116');

    f.clock.set('2026-01-18T12:00:00.000Z');
    f.sender.reply(() => OK);
    await resendDelivery(f.manage, { deliveryId: failed!.id, actorId: ws.ownerId });
    expect(await logPartitionOf(f.sql, failed!.id)).toBeUndefined();
    await deliverDue(f);

    expect(await logPartitionOf(f.sql, failed!.id)).toBe('webhook_delivery_log_p20260118');
    expect(await f.sql`select status, resend_count from webhook_deliveries where id = ${failed!.id}::uuid`).toEqual([
      { status: 'succeeded', resend_count: 1 },
    ]);
    expect(f.sender.sent.at(-1)!.messageId).toBe(failed!.message_id);
    const shown = await shownDelivery(f, failed!.id);
    expect(shown.webhook_id).toBe(failed!.message_id);
    expect(shown.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('are dropped by retention once their day ended 30 days ago, the next day kept', async () => {
    await f.engine.runDueJobs();
    const ws = await workspace(f);
    await endpoint(f, ws);
    const delivered: string[] = [];
    for (const at of ['2026-01-16T23:00:00.000Z', '2026-01-17T01:00:00.000Z']) {
      f.clock.set(at);
      await sentOffer(f, ws.workspaceId, at);
      await deliverDue(f);
      const [row] = await f.sql<{ id: string }[]>`select id from webhook_deliveries order by created_at desc limit 1`;
      delivered.push(row!.id);
    }
    expect(await logPartitionOf(f.sql, delivered[0]!)).toBe('webhook_delivery_log_p20260116');
    expect(await logPartitionOf(f.sql, delivered[1]!)).toBe('webhook_delivery_log_p20260117');

    // 30 days after the first delivery, but the 16th ends only 30 days after its midnight.
    f.clock.set('2026-02-15T23:59:59.999Z');
    expect(await f.engine.runDueJobs()).toContain('webhook-log-retention');
    expect(await exists(f.sql, 'webhook_delivery_log_p20260116')).toBe(true);
    expect(await shownDelivery(f, delivered[0]!)).toMatchObject({ status: 'succeeded' });

    f.clock.set(new Date(new Date('2026-02-16T00:00:00.000Z').getTime() + 6 * HOUR));
    expect(await f.engine.runDueJobs()).toContain('webhook-log-retention');
    for (const table of ['webhook_delivery_log', 'webhook_attempts']) {
      expect(await exists(f.sql, `${table}_p20260116`)).toBe(false);
      expect(await exists(f.sql, `${table}_p20260117`)).toBe(true);
    }
    await expect(shownDelivery(f, delivered[0]!)).rejects.toThrow(/not found/);
    expect((await shownDelivery(f, delivered[1]!)).attempts).toHaveLength(1);
    // The dropped delivery's message went with it; the kept one's stays.
    expect(await f.sql`select count(*)::int as n from webhook_messages`).toEqual([{ n: 1 }]);
  });

  it('keep a message past 30 days while a delivery refers to it (a late resend, an open one), its body resent as it was', async () => {
    await f.engine.runDueJobs();
    const ws = await workspace(f);
    await endpoint(f, ws);
    f.sender.reply(() => FAIL);
    await sentOffer(f, ws.workspaceId, 'Resent late');
    await sentOffer(f, ws.workspaceId, 'Resent, still open');
    await runSchedulesToEnd(f);
    // Made on the 15th, failed finally on the 16th: rows that ended a day after their message's.
    const [late, open] = await f.sql<{ id: string; message_id: string }[]>`
      select id, message_id from webhook_deliveries where status = 'failed' order by message_id`;
    f.sender.reply(() => OK);
    await sentOffer(f, ws.workspaceId, 'Same day');
    await deliverDue(f);
    const [sameDay] = await f.sql<{ message_id: string }[]>`select message_id from webhook_deliveries where status = 'succeeded'`;

    f.clock.set('2026-02-09T12:00:00.000Z');
    await f.engine.runDueJobs();
    f.clock.set('2026-02-10T12:00:00.000Z');
    await resendDelivery(f.manage, { deliveryId: late!.id, actorId: ws.ownerId });
    await deliverDue(f);
    expect(await logPartitionOf(f.sql, late!.id)).toBe('webhook_delivery_log_p20260210');
    expect(await exists(f.sql, 'webhook_delivery_log_p20260210_day_crossing_idx'), 'the day-crossing index of migration 0031').toBe(true);

    // The cutoff passes the 17th; the other failed delivery is resent, due, still in the queue.
    f.clock.set('2026-02-17T06:00:00.000Z');
    await resendDelivery(f.manage, { deliveryId: open!.id, actorId: ws.ownerId });
    const before = new Date(f.clock.now().getTime() - DELIVERY_LOG_RETENTION_MS);
    expect(await dropExpiredPartitions(f.sql, { before })).toBeGreaterThan(0);
    // One message a batch: the two kept ones come first, and each batch goes on after the last.
    const batches: { examined: number; deleted: number }[] = [];
    for (let after: MessageCursor | null = null; ; ) {
      const batch = await deleteUnusedMessages(f.sql, { before, after, limit: 1 });
      batches.push({ examined: batch.examined, deleted: batch.deleted });
      if (batch.examined < 1) break;
      after = batch.last;
    }
    expect(batches).toEqual([
      { examined: 1, deleted: 0 },
      { examined: 1, deleted: 0 },
      { examined: 1, deleted: 1 },
      { examined: 0, deleted: 0 },
    ]);
    // Of these three (the offers' later events, offer.expired, have messages of their own).
    const ids = [late!.message_id, open!.message_id, sameDay!.message_id];
    const left = async () =>
      (await f.sql<{ id: string }[]>`select id from webhook_messages where id = any (${ids}::uuid[]) order by id`).map((m) => m.id);
    expect(await left()).toEqual([late!.message_id, open!.message_id]);
    expect(await f.engine.runDueJobs()).toContain('webhook-log-retention');
    expect(await left()).toEqual([late!.message_id, open!.message_id]);

    // Both are sent again with the body of their first attempt on the 15th.
    await deliverDue(f);
    f.clock.set('2026-02-20T12:00:00.000Z');
    await resendDelivery(f.manage, { deliveryId: late!.id, actorId: ws.ownerId });
    await deliverDue(f);
    for (const { message_id: messageId } of [late!, open!]) {
      const bodies = f.sender.sent.filter((s) => s.messageId === messageId).map((s) => s.body);
      expect(bodies).toHaveLength(late!.message_id === messageId ? 10 : 9);
      expect(new Set(bodies).size).toBe(1);
    }

    // Once the open one's last row (ended on the 17th) is 30 days old its message goes; the late one's stays.
    f.clock.set('2026-03-20T06:00:00.000Z');
    expect(await f.engine.runDueJobs()).toContain('webhook-log-retention');
    expect(await left()).toEqual([late!.message_id]);
  });

  it('keep a row of a day without a partition in the default one until that day is made, then move it there', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    f.clock.set('2030-06-01T12:00:00.000Z');
    await sentOffer(f, ws.workspaceId, 'Far ahead');
    await deliverDue(f);
    const [row] = await f.sql<{ id: string }[]>`select id from webhook_deliveries`;
    expect(await logPartitionOf(f.sql, row!.id)).toBe('webhook_delivery_log_default');
    const [attempt] = await f.sql<{ part: string }[]>`select tableoid::regclass::text as part from webhook_attempts`;
    expect(attempt!.part).toBe('webhook_attempts_default');

    const day = new Date('2030-06-01T00:00:00.000Z');
    expect(await ensureLogPartitions(f.sql, { firstDay: day, lastDay: day })).toBe(2);

    expect(await logPartitionOf(f.sql, row!.id)).toBe('webhook_delivery_log_p20300601');
    expect(await f.sql`select tableoid::regclass::text as part from webhook_attempts`).toEqual([{ part: 'webhook_attempts_p20300601' }]);
    expect(await shownDelivery(f, row!.id)).toMatchObject({ status: 'succeeded', attempts: [{ attempt: 1, succeeded: true }] });
  });

  it('are not made while a reader holds the default partition past the lock timeout, and are made once it lets go', async () => {
    let locked!: () => void;
    let release!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const reader = f.sql.begin(async (tx) => {
      await tx`lock table webhook_delivery_log_default in access share mode`;
      locked();
      await released;
    });
    await isLocked;
    const day = new Date('2031-03-01T00:00:00.000Z');
    try {
      await expect(ensureLogPartitions(f.sql, { firstDay: day, lastDay: day })).rejects.toThrow(/lock timeout/);
      expect(await exists(f.sql, 'webhook_delivery_log_p20310301')).toBe(false);
    } finally {
      release();
      await reader;
    }
    expect(await ensureLogPartitions(f.sql, { firstDay: day, lastDay: day })).toBe(2);
  });
});
