import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/migrate.js';
import { useDatabaseBefore } from '../../support/database-before.js';

/** Migration 0011 on a database with a delivery log made before it: every new column backfilled. */
const db = useDatabaseBefore('delivery_log');

describe('migration delivery_log', () => {
  it('backfills the offer of each message, the type of each delivery, the endpoint of each attempt and why a paused endpoint is paused', async () => {
    const now = new Date('2026-01-15T10:00:00.000Z');
    const [ws] = await db.sql<{ id: string }[]>`insert into workspaces (name, timezone, currency) values ('Old', 'UTC', 'EUR') returning id`;
    const [paused] = await db.sql<{ id: string }[]>`
      insert into webhook_endpoints (workspace_id, url, event_types, secret_sealed, state, failure_streak, created_at, updated_at, paused_at)
      values (${ws!.id}::uuid, 'https://hooks.example.com/a', ${['offer.sent']}::text[], ${randomBytes(40)}, 'paused', 5, ${now}, ${now}, ${now})
      returning id`;
    const [active] = await db.sql<{ id: string }[]>`
      insert into webhook_endpoints (workspace_id, url, event_types, secret_sealed, created_at, updated_at)
      values (${ws!.id}::uuid, 'https://hooks.example.com/b', ${['offer.sent']}::text[], ${randomBytes(40)}, ${now}, ${now})
      returning id`;
    const offerId = randomUUID();
    const sentId = randomUUID();
    const pingId = randomUUID();
    const sentBody = JSON.stringify({ id: sentId, type: 'offer.sent', api_version: 'v1', data: { offer: { id: offerId }, event: { type: 'sent' } } });
    const pingBody = JSON.stringify({ id: pingId, type: 'ping', api_version: 'v1', data: {} });
    await db.sql`
      insert into webhook_messages (id, workspace_id, type, body, created_at)
      values (${sentId}::uuid, ${ws!.id}::uuid, 'offer.sent', ${sentBody}, ${now}),
             (${pingId}::uuid, ${ws!.id}::uuid, 'ping', ${pingBody}, ${now})`;
    const deliveries = await db.sql<{ id: string; message_id: string }[]>`
      insert into webhook_deliveries (message_id, endpoint_id, workspace_id, is_test, status, attempt_count, max_attempts, created_at, updated_at, finished_at)
      values (${sentId}::uuid, ${paused!.id}::uuid, ${ws!.id}::uuid, false, 'failed', 1, 8, ${now}, ${now}, ${now}),
             (${pingId}::uuid, ${active!.id}::uuid, ${ws!.id}::uuid, true, 'succeeded', 1, 8, ${now}, ${now}, ${now})
      returning id, message_id`;
    for (const d of deliveries) {
      await db.sql`
        insert into webhook_attempts (delivery_id, attempt, attempted_at, succeeded, status_code, duration_ms)
        values (${d.id}::uuid, 1, ${now}, ${d.message_id === pingId}, ${d.message_id === pingId ? 200 : 500}, 7)`;
    }

    expect(await migrate(db.sql)).toContain(db.migration.version);

    expect(await db.sql`select id, offer_id from webhook_messages order by type`).toEqual([
      { id: sentId, offer_id: offerId },
      { id: pingId, offer_id: null },
    ]);
    expect(await db.sql`select endpoint_id, event_type from webhook_deliveries order by event_type`).toEqual([
      { endpoint_id: paused!.id, event_type: 'offer.sent' },
      { endpoint_id: active!.id, event_type: 'ping' },
    ]);
    expect(await db.sql`select a.endpoint_id = d.endpoint_id as same, a.signature from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id`).toEqual([
      { same: true, signature: null },
      { same: true, signature: null },
    ]);
    expect(await db.sql`select state, paused_reason from webhook_endpoints order by url`).toEqual([
      { state: 'paused', paused_reason: 'failures' },
      { state: 'active', paused_reason: null },
    ]);
  });
});
