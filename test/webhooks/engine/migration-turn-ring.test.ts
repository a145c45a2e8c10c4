import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { migrate } from '../../../src/db/migrate.js';
import { createLogger } from '../../../src/log.js';
import { createWebhookEngine } from '../../../src/webhooks/engine/engine.js';
import { useDatabaseBefore } from '../../support/database-before.js';
import { fakeSender, MASTER_KEY, START } from './helpers.js';
import { waitingWorkspaceAsBefore } from './waiting-workspace.js';

/**
 * Migration 0037 on a database whose round-robin queue the release before ordered by rewriting
 * each served workspace's place (README "Upgrading"): the ring it makes is read in the queue's
 * order, longest-waiting first, and a place the old worker still writes (behind every other) is a
 * place in the ring. Every open delivery is then sent once.
 */
const db = useDatabaseBefore('webhook_turn_ring');
const at = new Date(START);

const waitingWorkspace = (name: string, position: number) =>
  waitingWorkspaceAsBefore(db.sql, { name, position, deliveries: 2, at });

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
