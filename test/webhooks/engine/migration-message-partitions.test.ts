import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DAY } from '../../../src/clock.js';
import { migrate } from '../../../src/db/migrate.js';
import { dropUnusedMessageDays } from '../../../src/jobs/sql/dropUnusedMessageDays.js';
import { insertMessages } from '../../../src/webhooks/sql/insertMessages.js';
import { readDelivery } from '../../../src/webhooks/sql/readDelivery.js';
import { useDatabaseBefore } from '../../support/database-before.js';

/**
 * Migration 0032 on a database with messages, open deliveries and finished log rows: every message
 * stays, in one legacy partition attached as it was, each delivery reads its message and body, the
 * next days are made, the queue's foreign key is gone, and retention keeps the legacy partition
 * while an open delivery refers to it.
 */
const db = useDatabaseBefore('webhook_message_partitions');

describe('migration webhook_message_partitions', () => {
  it('keeps every message with its deliveries, in a legacy partition, and makes the next days', async () => {
    const now = Date.now();
    const [ws] = await db.sql<{ id: string }[]>`insert into workspaces (name, timezone, currency) values ('Old', 'UTC', 'EUR') returning id`;
    const [ep] = await db.sql<{ id: string }[]>`
      insert into webhook_endpoints (workspace_id, url, event_types, secret_sealed, created_at, updated_at)
      values (${ws!.id}::uuid, 'https://hooks.example.com/a', ${['offer.sent']}::text[], ${randomBytes(40)}, ${new Date(now - 40 * DAY)}, ${new Date(now - 40 * DAY)})
      returning id`;
    // The log's days ahead, as the periodic job had made them before.
    await db.sql`select webhook_log_partitions_ensure(current_date + 1, current_date + 3)`;
    const made = [40, 2, 0].map((daysAgo) => ({ id: randomUUID(), at: new Date(now - daysAgo * DAY - 60_000) }));
    for (const m of made) {
      await db.sql`
        insert into webhook_messages (id, workspace_id, type, body, created_at)
        values (${m.id}::uuid, ${ws!.id}::uuid, 'offer.sent', ${JSON.stringify({ id: m.id })}, ${m.at})`;
    }
    const [old, open, today] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0]];
    const [queued] = await db.sql<{ id: string }[]>`
      insert into webhook_queue (message_id, endpoint_id, workspace_id, event_type, status, attempt_count, max_attempts, next_attempt_at, created_at, updated_at)
      values (${open.id}::uuid, ${ep!.id}::uuid, ${ws!.id}::uuid, 'offer.sent', 'pending', 1, 8, ${new Date(now + DAY)}, ${open.at}, ${open.at})
      returning id`;
    const finished = await db.sql<{ id: string }[]>`
      insert into webhook_delivery_log (message_id, endpoint_id, workspace_id, event_type, status, attempt_count, max_attempts, created_at, updated_at, finished_at)
      values (${old.id}::uuid, ${ep!.id}::uuid, ${ws!.id}::uuid, 'offer.sent', 'succeeded', 1, 8, ${old.at}, ${old.at}, ${old.at}),
             (${today.id}::uuid, ${ep!.id}::uuid, ${ws!.id}::uuid, 'offer.sent', 'failed', 8, 8, ${today.at}, ${today.at}, ${today.at})
      returning id`;

    expect(await migrate(db.sql)).toContain(db.migration.version);

    expect(await db.sql`select id, tableoid::regclass::text as part from webhook_messages order by created_at`).toEqual(
      made.map((m) => ({ id: m.id, part: 'webhook_messages_legacy' })),
    );
    // Every delivery, open or finished, reads its message (the webhook-id and body) by (id, created_at).
    for (const [deliveryId, message] of [[queued!.id, open], [finished[0]!.id, old], [finished[1]!.id, today]] as const) {
      const read = await readDelivery(db.sql, { deliveryId });
      expect(read).toMatchObject({ message_id: message.id, body: JSON.stringify({ id: message.id }) });
    }
    // Attached as it was: its old primary key is its id key, and the parent's indexes are its own.
    expect(
      (await db.sql<{ name: string }[]>`select indexrelid::regclass::text as name from pg_index where indrelid = 'webhook_messages_legacy'::regclass order by 1`).map((r) => r.name),
    ).toEqual(['webhook_messages_legacy_created_idx', 'webhook_messages_legacy_id_key', 'webhook_messages_legacy_offer_idx']);
    expect(await db.sql`select conname from pg_constraint where conrelid = 'webhook_queue'::regclass and contype = 'f' and conname like '%message%'`).toEqual([]);

    // The days after the legacy partition's end, with the log's made ahead.
    const days = await db.sql<{ name: string }[]>`
      select name from webhook_log_partitions('webhook_messages'::regclass) where lower_bound is not null order by lower_bound`;
    const tomorrow = new Date(Math.floor(now / DAY) * DAY + DAY).toISOString().slice(0, 10).replaceAll('-', '');
    expect(days[0]!.name).toBe(`webhook_messages_p${tomorrow}`);
    expect(days.length).toBeGreaterThanOrEqual(3);

    // A new message goes into today's partition (the default one: today has none), no insert fails;
    // one made tomorrow goes into tomorrow's.
    const later = { id: randomUUID(), workspaceId: ws!.id, type: 'ping', body: '{}' };
    await insertMessages(db.sql, [later], new Date(now));
    await insertMessages(db.sql, [later], new Date(now));
    const next = { ...later, id: randomUUID() };
    await insertMessages(db.sql, [next], new Date(Math.floor(now / DAY) * DAY + DAY + 60_000));
    expect(await db.sql`select tableoid::regclass::text as part from webhook_messages where id = any (${[later.id, next.id]}::uuid[]) order by created_at`).toEqual([
      { part: 'webhook_messages_legacy' },
      { part: `webhook_messages_p${tomorrow}` },
    ]);

    // Retention long after: the legacy partition stays while the open delivery refers to it, then goes.
    const farAhead = new Date(now + 400 * DAY);
    await db.sql`delete from webhook_delivery_log`;
    expect(await dropUnusedMessageDays(db.sql, { before: farAhead })).toBeGreaterThanOrEqual(1);
    expect(await db.sql`select to_regclass('webhook_messages_legacy') is not null as kept`).toEqual([{ kept: true }]);
    await db.sql`delete from webhook_queue`;
    await dropUnusedMessageDays(db.sql, { before: farAhead });
    expect(await db.sql`select to_regclass('webhook_messages_legacy') is not null as kept`).toEqual([{ kept: false }]);
  });
});
