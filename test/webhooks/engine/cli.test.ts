import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { cliRunner } from '../../cli/runner.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { MASTER_KEY, memberOf, workspace } from './helpers.js';

/** The webhook commands of `offerdesk` as an operator runs them: JSON out, one-line refusals. */

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

describe('offerdesk endpoint / delivery commands', () => {
  it('adds an endpoint, prints {id, secret}, then lists and tests it', async () => {
    const ws = await workspace({ sql: db.sql, clock: systemClock });

    const added = await offerdesk('endpoint', 'add', '--workspace', ws.workspaceId, '--url', 'https://hooks.test/in',
      '--events', 'offer.sent,offer.accepted', '--as', ws.ownerId, '--json');
    expect(added.code).toBe(0);
    const { id, secret } = JSON.parse(added.stdout) as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_/);

    const listed = JSON.parse((await offerdesk('endpoint', 'list', '--workspace', ws.workspaceId, '--as', ws.ownerId, '--json')).stdout);
    expect(listed).toEqual([expect.objectContaining({ id, state: 'active', events: ['offer.sent', 'offer.accepted'], failure_streak: 0 })]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    expect((await offerdesk('endpoint', 'test', id, '--as', ws.ownerId, '--json')).code).toBe(0);
    const deliveries = JSON.parse((await offerdesk('delivery', 'list', '--endpoint', id, '--as', ws.ownerId, '--json')).stdout);
    expect(deliveries).toEqual([expect.objectContaining({ type: 'ping', status: 'pending', attempt_count: 0 })]);
  }, 60_000);

  it('refuses a bad address with its reason on one line and exit code 2', async () => {
    const ws = await workspace({ sql: db.sql, clock: systemClock });
    const refused = await offerdesk('endpoint', 'add', '--workspace', ws.workspaceId, '--url', 'http://hooks.test/in',
      '--events', 'offer.sent', '--as', ws.ownerId);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn'))).toEqual([
      'offerdesk: endpoint address refused: address must use https',
    ]);
  }, 30_000);

  it('refuses a member with exit code 2', async () => {
    const ws = await workspace({ sql: db.sql, clock: systemClock });
    const member = await memberOf({ sql: db.sql, clock: systemClock }, ws.workspaceId, 'member');
    const refused = await offerdesk('endpoint', 'add', '--workspace', ws.workspaceId, '--url', 'https://hooks.test/in',
      '--events', 'offer.sent', '--as', member);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/needs owner or admin/);
  }, 30_000);
});
