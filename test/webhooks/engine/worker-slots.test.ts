import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { startWorker } from '../../../src/host/worker.js';
import { addEndpoint } from '../../../src/webhooks/management/endpoints.js';
import { loadMasterKeys } from '../../../src/sealing/master-keys.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { until } from '../../support/until.js';
import { fakeSender, MASTER_KEY, sentOffer, webhookConfig, workspace } from './helpers.js';

/**
 * The worker's slots: a slot is free once its request has ended, while the outcome waits for the
 * group commit; stop() still waits until every outcome is stored (docs/reliability.md "Graceful
 * stop": on SIGTERM attempts in flight finish and record their outcome).
 */

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** The database with every outcome write (completeAttempts) held until `release`. */
function holdingOutcomes(sql: Sql) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  const proxy = new Proxy(sql, {
    apply(target, self, args) {
      if (String((args[0] as TemplateStringsArray)[0]).includes('json_to_recordset')) {
        held += 1;
        return released.then(() => Reflect.apply(target as never, self, args));
      }
      return Reflect.apply(target as never, self, args);
    },
  });
  return { sql: proxy, release, held: () => held };
}

async function statuses(): Promise<string[]> {
  const rows = await db.sql<{ status: string }[]>`select status from webhook_deliveries order by created_at, id`;
  return rows.map((row) => row.status);
}

describe('worker slots', () => {
  it('frees a slot when its request ends, and stop() waits for the outcomes still being written', async () => {
    const config = loadConfig({
      OFFERDESK_MASTER_KEY: MASTER_KEY,
      OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.test=127.0.0.1:8443',
      WEBHOOK_WORKER_CONCURRENCY: '1',
    });
    const manage = { sql: db.sql, clock: systemClock, config: webhookConfig(), masterKey: Buffer.from(MASTER_KEY, 'base64') };
    // Two endpoints: a delivery whose outcome is unwritten still counts toward its endpoint's share.
    for (const title of ['First', 'Second']) {
      const ws = await workspace({ sql: db.sql, clock: systemClock });
      await addEndpoint(manage, { workspaceId: ws.workspaceId, url: `https://hooks.test/${title}`, events: ['offer.sent'], actorId: ws.ownerId });
      await sentOffer({ sql: db.sql, clock: systemClock }, ws.workspaceId, title);
    }
    const logger = createLogger('silent');
    const sender = fakeSender();
    const outcomes = holdingOutcomes(db.sql);

    const worker = await startWorker({ sql: outcomes.sql, config, clock: systemClock, logger, sender, masterKeys: loadMasterKeys(config, logger) });

    // One slot: the second delivery is sent while the first one's outcome is still unwritten.
    await until(() => sender.sent.length === 2, 10_000, 'both deliveries sent through one slot', 20);
    expect(outcomes.held()).toBeGreaterThan(0);
    expect(await statuses()).toEqual(['sending', 'sending']);

    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stopped).toBe(false);
    expect(await statuses()).toEqual(['sending', 'sending']);

    outcomes.release();
    await stopping;
    expect(await statuses()).toEqual(['succeeded', 'succeeded']);
    const [log] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts where succeeded`;
    expect(log!.n).toBe(2);
  }, 30_000);
});
