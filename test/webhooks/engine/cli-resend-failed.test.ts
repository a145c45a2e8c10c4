import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, systemClock } from '../../../src/clock.js';
import { seedDeliveryLog } from '../../support/seed/delivery-log.js';
import { cliRunner } from '../../cli/runner.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { MASTER_KEY, memberOf, workspace } from './helpers.js';

/** `offerdesk delivery resend-failed`: the same domain function as the console's, from the CLI. */
let db: TestDatabase;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

const { cli: offerdesk } = cliRunner(() => ({
  DATABASE_URL: db.url,
  OFFERDESK_MASTER_KEY: MASTER_KEY,
  OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.test=127.0.0.1:9',
}));

describe('offerdesk delivery resend-failed', () => {
  it('previews the count, then resends exactly that many; a member is refused on one line', async () => {
    const ws = await workspace({ sql: db.sql, clock: systemClock });
    const added = await offerdesk('endpoint', 'add', '--workspace', ws.workspaceId, '--url', 'https://hooks.test/in', '--events', 'offer.sent', '--as', ws.ownerId, '--json');
    const { id } = JSON.parse(added.stdout) as { id: string };
    await seedDeliveryLog(db.sql, { workspaceId: ws.workspaceId, endpointIds: [id], count: 400, pending: 0, now: systemClock.now() });
    const since = new Date(Date.now() - 3 * HOUR).toISOString();
    const [want] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from webhook_deliveries where endpoint_id = ${id}::uuid and status = 'failed' and created_at >= ${since}`;
    expect(want!.n).toBeGreaterThan(0);

    const preview = await offerdesk('delivery', 'resend-failed', '--endpoint', id, '--since', since, '--preview', '--json');
    expect(preview.code, preview.stderr).toBe(0);
    expect(JSON.parse(preview.stdout)).toEqual({ preview: true, count: want!.n, skipped_limit: 0 });

    const member = await memberOf({ sql: db.sql, clock: systemClock }, ws.workspaceId, 'member');
    const refused = await offerdesk('delivery', 'resend-failed', '--endpoint', id, '--since', since, '--as', member);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);

    const resent = await offerdesk('delivery', 'resend-failed', '--endpoint', id, '--since', since, '--as', ws.ownerId);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toContain(`${want!.n} failed deliveries queued for one more attempt`);
    const [left] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from webhook_deliveries where endpoint_id = ${id}::uuid and status = 'failed' and created_at >= ${since}`;
    expect(left!.n).toBe(0);

    const bad = await offerdesk('delivery', 'resend-failed', '--endpoint', id, '--since', 'yesterday', '--preview');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since must be an ISO 8601 date-time/);
  }, 90_000);
});
