import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DAY } from '../../../src/clock.js';
import { migrate } from '../../../src/db/migrate.js';
import { listDeliveryLog } from '../../../src/webhooks/sql/listDeliveryLog.js';
import { useDatabaseBefore } from '../../support/database-before.js';

/**
 * Migration 0033 on a database with a finished delivery (with its attempts) and an open one: no
 * row is rewritten, both stay without the new columns, and the log's page still shows each one's
 * offer and last response status, read from the message and the attempts as before.
 */
const db = useDatabaseBefore('delivery_log_page_facts');

describe('migration delivery_log_page_facts', () => {
  it('leaves the rows as they are and the page shows the same offers and statuses', async () => {
    const now = Date.now();
    const [ws] = await db.sql<{ id: string }[]>`insert into workspaces (name, timezone, currency) values ('Old', 'UTC', 'EUR') returning id`;
    const [ep] = await db.sql<{ id: string }[]>`
      insert into webhook_endpoints (workspace_id, url, event_types, secret_sealed, created_at, updated_at)
      values (${ws!.id}::uuid, 'https://hooks.example.com/a', ${['offer.sent']}::text[], ${randomBytes(40)}, ${new Date(now - 3 * DAY)}, ${new Date(now - 3 * DAY)})
      returning id`;
    const [done, open] = [{ at: new Date(now - 2 * DAY), offer: randomUUID() }, { at: new Date(now - 60_000), offer: randomUUID() }].map((m) => ({ ...m, id: randomUUID() }));
    for (const m of [done!, open!]) {
      await db.sql`
        insert into webhook_messages (id, workspace_id, type, body, offer_id, created_at)
        values (${m.id}::uuid, ${ws!.id}::uuid, 'offer.sent', '{}', ${m.offer}::uuid, ${m.at})`;
    }
    const [finished] = await db.sql<{ id: string }[]>`
      insert into webhook_delivery_log (message_id, endpoint_id, workspace_id, event_type, status, attempt_count, max_attempts, created_at, updated_at, finished_at)
      values (${done!.id}::uuid, ${ep!.id}::uuid, ${ws!.id}::uuid, 'offer.sent', 'succeeded', 2, 8, ${done!.at}, ${done!.at}, ${done!.at})
      returning id`;
    const [queued] = await db.sql<{ id: string }[]>`
      insert into webhook_queue (message_id, endpoint_id, workspace_id, event_type, status, attempt_count, max_attempts, next_attempt_at, created_at, updated_at)
      values (${open!.id}::uuid, ${ep!.id}::uuid, ${ws!.id}::uuid, 'offer.sent', 'pending', 1, 8, ${new Date(now + DAY)}, ${open!.at}, ${open!.at})
      returning id`;
    await db.sql`
      insert into webhook_attempts (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
      values (${finished!.id}::uuid, ${ep!.id}::uuid, 1, ${done!.at}, false, 503, 10),
             (${finished!.id}::uuid, ${ep!.id}::uuid, 2, ${done!.at}, true, 204, 10),
             (${queued!.id}::uuid, ${ep!.id}::uuid, 1, ${open!.at}, false, 429, 10)`;

    expect(await migrate(db.sql)).toContain(db.migration.version);

    expect(await db.sql`select offer_id, last_response_status from webhook_delivery_log`).toEqual([{ offer_id: null, last_response_status: null }]);
    expect(await db.sql`select offer_id from webhook_queue`).toEqual([{ offer_id: null }]);
    const page = await listDeliveryLog(db.sql, {
      workspaceId: ws!.id, status: null, eventType: null, endpointId: null, since: null, until: null, q: null, after: null, limit: 50,
    });
    expect(page.map((row) => ({ id: row.id, offer_id: row.offer_id, last_response_status: row.last_response_status }))).toEqual([
      { id: queued!.id, offer_id: open!.offer, last_response_status: 429 },
      { id: finished!.id, offer_id: done!.offer, last_response_status: 204 },
    ]);
  });
});
