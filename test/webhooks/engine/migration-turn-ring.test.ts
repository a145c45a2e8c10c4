import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { migrate } from '../../../src/db/migrate.js';
import { createLogger } from '../../../src/log.js';
import { generateEndpointSecret, sealSecret } from '../../../src/sealing/secrets.js';
import { createWebhookEngine } from '../../../src/webhooks/engine/engine.js';
import { useDatabaseBefore } from '../../support/database-before.js';
import { fakeSender, MASTER_KEY, START } from './helpers.js';

/**
 * Migration 0037 on a database whose round-robin queue the release before ordered by rewriting
 * each served workspace's place (README "Upgrading"): the ring it makes is read in the queue's
 * order, longest-waiting first, and a place the old worker still writes (behind every other) is a
 * place in the ring. Every open delivery is then sent once.
 */
const db = useDatabaseBefore('webhook_turn_ring');
const at = new Date(START);

async function waitingWorkspace(name: string, position: number) {
  const [ws] = await db.sql<{ id: string }[]>`insert into workspaces (name, timezone, currency) values (${name}, 'UTC', 'EUR') returning id`;
  await db.sql`insert into webhook_workspace_state (workspace_id, queue_position) values (${ws!.id}::uuid, ${position})`;
  const endpointId = randomUUID();
  const sealed = sealSecret(Buffer.from(MASTER_KEY, 'base64'), endpointId, generateEndpointSecret());
  await db.sql`
    insert into webhook_endpoints (id, workspace_id, url, event_types, secret_sealed, created_at, updated_at)
    values (${endpointId}::uuid, ${ws!.id}::uuid, ${`https://hooks.test/${name}`}, ${['offer.sent']}::text[], ${sealed}, ${at}, ${at})`;
  for (let i = 0; i < 2; i++) {
    const messageId = randomUUID();
    await db.sql`insert into webhook_messages (id, workspace_id, type, body, created_at) values (${messageId}::uuid, ${ws!.id}::uuid, 'offer.sent', '{}', ${at})`;
    await db.sql`
      insert into webhook_queue (message_id, endpoint_id, workspace_id, event_type, status, max_attempts, next_attempt_at, created_at, updated_at)
      values (${messageId}::uuid, ${endpointId}::uuid, ${ws!.id}::uuid, 'offer.sent', 'pending', 8, ${at}, ${at}, ${at})`;
  }
  return ws!.id;
}

describe('migration webhook_turn_ring', () => {
  it("serves the old queue's workspaces in its order, beside the old worker's writes, each delivery once", async () => {
    // The old queue's order: c (3), a (5), b (9).
    const a = await waitingWorkspace('a', 5);
    const b = await waitingWorkspace('b', 9);
    const c = await waitingWorkspace('c', 3);

    await migrate(db.sql);
    // The old worker, still running, serves c and moves it behind all others, as it did.
    await db.sql`update webhook_workspace_state set queue_position = (select max(queue_position) + 1 from webhook_workspace_state)
                  where workspace_id = ${c}::uuid`;
    const sender = fakeSender();
    const engine = createWebhookEngine({
      sql: db.sql,
      clock: new ManualClock(START),
      sender,
      masterKey: Buffer.from(MASTER_KEY, 'base64'),
      logger: createLogger('silent'),
      settings: { startsPerMinutePerWorkspace: 60, concurrency: 8, leaseMs: 60_000 },
    });
    for (let i = 0; i < 6; i++) await engine.dispatchOnce(1);

    expect(sender.sent.map((s) => new URL(s.url).pathname.slice(1))).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(await db.sql`select id from webhook_queue`).toEqual([]);
    expect(new Set(sender.sent.map((s) => s.messageId)).size).toBe(6);
  });
});
