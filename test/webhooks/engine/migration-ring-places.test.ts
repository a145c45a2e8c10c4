import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { migrate } from '../../../src/db/migrate.js';
import { createLogger } from '../../../src/log.js';
import { createWebhookEngine } from '../../../src/webhooks/engine/engine.js';
import { useDatabaseBefore } from '../../support/database-before.js';
import { fakeSender, MASTER_KEY, START } from './helpers.js';
import { waitingWorkspaceAsBefore } from './waiting-workspace.js';

/**
 * Migration 0038 on a ring whose places the release before let workspaces share (README
 * "Upgrading"): it gives every place a position of its own without changing the ring's order or
 * what the cursor marks, so the next claims serve from just after the cursor as before, each
 * delivery once.
 */
const db = useDatabaseBefore('webhook_ring_places');
const at = new Date(START);

const waitingWorkspace = (name: string) => waitingWorkspaceAsBefore(db.sql, { name, position: 1, deliveries: 1, at });

describe('migration webhook_ring_places', () => {
  it('gives each place a position of its own in the same ring order, the cursor where it was', async () => {
    const ids = new Map<string, string>();
    for (const name of ['a', 'b', 'c', 'd', 'e']) ids.set(name, await waitingWorkspace(name));
    // The release before's places: a to d share position 4 (in entry order), e stands at 7, and
    // the cursor is on b.
    for (const [name, entry] of [['a', 10], ['b', 11], ['c', 12], ['d', 13], ['e', 14]] as const) {
      await db.sql`update webhook_workspace_state set queue_position = ${name === 'e' ? 7 : 4}, queue_entry = ${entry}
                    where workspace_id = ${ids.get(name)!}::uuid`;
    }
    await db.sql`update webhook_round_robin set queue_position = 4, queue_entry = 11`;

    await migrate(db.sql);

    const [shared] = await db.sql<{ count: number }[]>`
      select count(*)::int as count from (select queue_position from webhook_workspace_state group by 1 having count(*) > 1) t`;
    expect(shared!.count).toBe(0);
    const sender = fakeSender();
    const engine = createWebhookEngine({
      sql: db.sql,
      clock: new ManualClock(START),
      sender,
      masterKey: Buffer.from(MASTER_KEY, 'base64'),
      logger: createLogger('silent'),
      settings: { startsPerMinutePerWorkspace: 60, concurrency: 8, leaseMs: 60_000 },
    });
    for (let i = 0; i < 5; i++) await engine.dispatchOnce(1);

    expect(sender.sent.map((s) => new URL(s.url).pathname.slice(1))).toEqual(['c', 'd', 'e', 'a', 'b']);
    expect(await db.sql`select id from webhook_queue`).toEqual([]);
    expect(new Set(sender.sent.map((s) => s.messageId)).size).toBe(5);
  });
});
