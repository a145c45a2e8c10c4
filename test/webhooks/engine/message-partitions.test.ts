import { describe, expect, it } from 'vitest';
import { DAY } from '../../../src/clock.js';
import type { Sql } from '../../../src/db/connect.js';
import { DELIVERY_LOG_RETENTION_MS } from '../../../src/jobs/policy.js';
import { dropExpiredPartitions } from '../../../src/jobs/sql/dropExpiredPartitions.js';
import { dropUnusedMessageDays } from '../../../src/jobs/sql/dropUnusedMessageDays.js';
import { resendDelivery } from '../../../src/webhooks/management/resend.js';
import { shownDelivery } from './log-helpers.js';
import { FAIL, OK, deliverDue, endpoint, runSchedulesToEnd, sentOffer, useEngineFixture, workspace } from './helpers.js';

/**
 * The messages by UTC day (migration 0032), on the controlled clock: the periodic job makes their
 * days ahead with the log's, retention drops a day of messages once it ended 30 days ago and
 * nothing refers to it (docs/delivery-log.md "Retention"), and keeps it
 * whole while a late resend's log row or an open retry still does, its body sent as it was.
 */
const f = useEngineFixture();

async function exists(sql: Sql, table: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`select to_regclass(${table}) is not null as found`;
  return row!.found;
}

/** The partition that holds a message. */
async function messagePartitionOf(sql: Sql, messageId: string): Promise<string | undefined> {
  const [row] = await sql<{ part: string }[]>`select tableoid::regclass::text as part from webhook_messages where id = ${messageId}::uuid`;
  return row?.part;
}

/** The one delivery of the newest message of a sent offer, with its message. */
async function newestDelivery(sql: Sql): Promise<{ id: string; message_id: string }> {
  const [row] = await sql<{ id: string; message_id: string }[]>`
    select id, message_id from webhook_deliveries order by created_at desc, id desc limit 1`;
  return row!;
}

describe('daily partitions of the messages', () => {
  it('are made for the next 3 days with the log days by the periodic job, by the clock', async () => {
    // START is 2026-01-15 10:00 UTC.
    expect(await f.engine.runDueJobs()).toContain('webhook-log-partitions');
    expect(await exists(f.sql, 'webhook_messages_p20260115'), 'today is not made: its rows stay in the default partition').toBe(false);
    for (const day of ['20260116', '20260117', '20260118']) expect(await exists(f.sql, `webhook_messages_p${day}`)).toBe(true);
    expect(await exists(f.sql, 'webhook_messages_p20260119')).toBe(false);
    f.clock.advance(DAY);
    await f.engine.runDueJobs();
    expect(await exists(f.sql, 'webhook_messages_p20260119')).toBe(true);
    // A message of a day with a partition goes there, its id unique in it.
    const ws = await workspace(f);
    await endpoint(f, ws);
    await sentOffer(f, ws.workspaceId, 'Day 16');
    await deliverDue(f);
    const sent = await newestDelivery(f.sql);
    expect(await messagePartitionOf(f.sql, sent.message_id)).toBe('webhook_messages_p20260116');
    expect(await f.sql`select indexrelid::regclass::text as name from pg_index where indrelid = 'webhook_messages_p20260116'::regclass and indisunique`).toEqual([
      { name: 'webhook_messages_p20260116_id_key' },
    ]);
    expect((await shownDelivery(f, sent.id)).webhook_id).toBe(sent.message_id);
  });

  it('are dropped once the day ended 30 days ago and nothing refers to them; kept whole while a late resend or an open retry does', async () => {
    await f.engine.runDueJobs();
    const ws = await workspace(f);
    await endpoint(f, ws);

    // A on the 16th and B on the 17th fail finally the next morning (rows that ended a day after
    // their message's); C on the 18th succeeds that day.
    f.clock.set('2026-01-16T10:00:00.000Z');
    await f.engine.runDueJobs();
    f.sender.reply(() => FAIL);
    await sentOffer(f, ws.workspaceId, 'A');
    await runSchedulesToEnd(f);
    const a = await newestDelivery(f.sql);
    f.clock.set('2026-01-17T10:00:00.000Z');
    await f.engine.runDueJobs();
    await sentOffer(f, ws.workspaceId, 'B');
    await runSchedulesToEnd(f);
    const b = await newestDelivery(f.sql);
    f.clock.set('2026-01-18T10:00:00.000Z');
    await f.engine.runDueJobs();
    f.sender.reply(() => OK);
    await sentOffer(f, ws.workspaceId, 'C');
    await deliverDue(f);
    const c = await newestDelivery(f.sql);
    expect([a, b, c].map((d) => d.message_id)).toHaveLength(3);
    expect(await messagePartitionOf(f.sql, a.message_id)).toBe('webhook_messages_p20260116');
    expect(await messagePartitionOf(f.sql, b.message_id)).toBe('webhook_messages_p20260117');
    expect(await messagePartitionOf(f.sql, c.message_id)).toBe('webhook_messages_p20260118');

    // A is resent late and succeeds on 14 February; B is resent on the 19th and left due, open.
    f.clock.set('2026-02-14T12:00:00.000Z');
    await f.engine.runDueJobs();
    await resendDelivery(f.manage, { deliveryId: a.id, actorId: ws.ownerId });
    await deliverDue(f);
    f.clock.set('2026-02-19T06:00:00.000Z');
    f.sender.reply(() => FAIL);
    await resendDelivery(f.manage, { deliveryId: b.id, actorId: ws.ownerId });
    expect(await f.sql`select status from webhook_queue where id = ${b.id}::uuid`).toEqual([{ status: 'pending' }]);

    // The cutoff (20 January 06:00) is past all three days: C's goes, A's and B's stay whole.
    expect(await f.engine.runDueJobs()).toContain('webhook-log-retention');
    expect(await exists(f.sql, 'webhook_messages_p20260118')).toBe(false);
    expect(await exists(f.sql, 'webhook_messages_p20260116'), "A's late resend still in the log").toBe(true);
    expect(await exists(f.sql, 'webhook_messages_p20260117'), "B's resend still open").toBe(true);
    await expect(shownDelivery(f, c.id)).rejects.toThrow(/not found/);

    // The open one is sent with the body of its first attempt, and its log row is now dated the 19th.
    f.sender.reply(() => OK);
    await deliverDue(f);
    const bodies = f.sender.sent.filter((s) => s.messageId === b.message_id).map((s) => s.body);
    expect(bodies).toHaveLength(9);
    expect(new Set(bodies).size).toBe(1);
    expect((await shownDelivery(f, b.id)).status).toBe('succeeded');

    // A's last row (ended 14 February) is 30 days old: its day goes; B's (19 February) keeps its own.
    f.clock.set('2026-03-17T06:00:00.000Z');
    expect(await f.engine.runDueJobs()).toContain('webhook-log-retention');
    expect(await exists(f.sql, 'webhook_messages_p20260116')).toBe(false);
    expect(await exists(f.sql, 'webhook_messages_p20260117')).toBe(true);
    expect((await shownDelivery(f, b.id)).webhook_id).toBe(b.message_id);
    f.clock.set('2026-03-22T06:00:00.000Z');
    expect(await f.engine.runDueJobs()).toContain('webhook-log-retention');
    expect(await exists(f.sql, 'webhook_messages_p20260117')).toBe(false);
    await expect(shownDelivery(f, b.id)).rejects.toThrow(/not found/);
  });

  it('keep a day whose log row has not been dropped yet (its partition drop waited), and drop it on the next run', async () => {
    await f.engine.runDueJobs();
    const ws = await workspace(f);
    await endpoint(f, ws);
    f.clock.set('2026-01-16T10:00:00.000Z');
    await sentOffer(f, ws.workspaceId, 'Same day');
    await deliverDue(f);
    const sent = await newestDelivery(f.sql);

    f.clock.set('2026-02-16T06:00:00.000Z');
    const before = new Date(f.clock.now().getTime() - DELIVERY_LOG_RETENTION_MS);
    // The log's day is still there (as when its drop timed out): the day's messages stay.
    expect(await dropUnusedMessageDays(f.sql, { before })).toBe(0);
    expect(await messagePartitionOf(f.sql, sent.message_id)).toBe('webhook_messages_p20260116');
    expect(await dropExpiredPartitions(f.sql, { before })).toBeGreaterThan(0);
    expect(await dropUnusedMessageDays(f.sql, { before })).toBeGreaterThanOrEqual(1);
    expect(await exists(f.sql, 'webhook_messages_p20260116')).toBe(false);
  });
});
