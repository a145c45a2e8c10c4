import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { loadConfig, type Config } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { startWorker } from '../../../src/host/worker.js';
import { addEndpoint } from '../../../src/webhooks/management/endpoints.js';
import type { AttemptOutcome } from '../../../src/webhooks/transport/sender.js';
import { loadMasterKeys } from '../../../src/sealing/master-keys.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';
import { until } from '../../support/until.js';
import { fakeSender, MASTER_KEY, OK, sentOffer, webhookConfig, workspace, type FakeSender } from './helpers.js';

/**
 * While the claims come back full, a worker claims its next batch while the current one is being
 * sent (worker.ts), so the claim's time overlaps sending. The claimed-ahead deliveries are still
 * sent once each, and one that waited for a slot longer than its lease allows is given back
 * instead of being sent under a lease that could end mid-attempt.
 */

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  await db.sql`truncate accounts, workspaces cascade`;
});

/** Four slots and, with one in flight per endpoint (policy.ts), eight endpoints each with one due delivery. */
async function eightDeliveries(extraEnv: Record<string, string> = {}) {
  const config = loadConfig({
    OFFERDESK_MASTER_KEY: MASTER_KEY,
    OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.test=127.0.0.1:8443',
    WEBHOOK_WORKER_CONCURRENCY: '4',
    ...extraEnv,
  });
  const manage = { sql: db.sql, clock: systemClock, config: webhookConfig(), masterKey: Buffer.from(MASTER_KEY, 'base64') };
  for (const title of ['First', 'Second']) {
    const ws = await workspace({ sql: db.sql, clock: systemClock });
    for (let i = 1; i <= 4; i++) {
      await addEndpoint(manage, { workspaceId: ws.workspaceId, url: `https://hooks.test/${title}/${i}`, events: ['offer.sent'], actorId: ws.ownerId });
    }
    await sentOffer({ sql: db.sql, clock: systemClock }, ws.workspaceId, title);
  }
  return config;
}

/** The database, counting the statements that give a claim back (releaseClaim.ts). */
function countingGiveBacks(sql: Sql) {
  let givenBack = 0;
  const proxy = new Proxy(sql, {
    apply(target, self, args) {
      const text = String((args[0] as TemplateStringsArray)[0]);
      if (text.includes("set status = 'pending', lease_token = null")) givenBack += 1;
      return Reflect.apply(target as never, self, args);
    },
  });
  return { sql: proxy, givenBack: () => givenBack };
}

/** A sender whose requests all wait until `release`. */
function heldSender() {
  const sender = fakeSender();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  sender.reply(async (): Promise<AttemptOutcome> => {
    await released;
    return OK;
  });
  return { sender, release };
}

async function statusCount(status: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where status = ${status}`;
  return row!.n;
}

/** A worker on the counting database with a sender that holds every request until `release`. */
async function heldWorker(config: Config) {
  const logger = createLogger('silent');
  const { sender, release } = heldSender();
  const database = countingGiveBacks(db.sql);
  const worker = await startWorker({ sql: database.sql, config, clock: systemClock, logger, sender, masterKeys: loadMasterKeys(config, logger) });
  return { worker, sender, release, database };
}

async function fourSentEightClaimed(sender: FakeSender): Promise<void> {
  await until(async () => sender.sent.length === 4 && (await statusCount('sending')) === 8, 10_000, 'four sent and eight claimed', 20);
}

describe('claiming ahead', () => {
  it('claims the next batch while the first is out, then sends every delivery once', async () => {
    const config = await eightDeliveries();
    const { worker, sender, release, database } = await heldWorker(config);
    try {
      // Four requests out and held; the other four deliveries already claimed, waiting for a slot.
      await fourSentEightClaimed(sender);
      expect(await statusCount('pending')).toBe(0);

      release();
      await until(async () => (await statusCount('succeeded')) === 8, 10_000, 'all eight delivered', 20);
    } finally {
      release();
      await worker.stop();
    }
    expect(sender.sent).toHaveLength(8);
    expect(new Set(sender.sent.map((request) => request.url)).size).toBe(8);
    const [attempts] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts`;
    expect(attempts!.n).toBe(8);
    expect(database.givenBack()).toBe(0);
  }, 30_000);

  it('gives back a delivery that waited for a slot longer than its lease allows, and sends it under a new claim', async () => {
    // A 12 s lease leaves (12 - 10) / 2 = 1 s to wait for a slot (policy.ts longestWaitForSlotMs).
    const config = await eightDeliveries({ WEBHOOK_LEASE_SECONDS: '12' });
    const { worker, sender, release, database } = await heldWorker(config);
    try {
      await fourSentEightClaimed(sender);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      release();
      await until(async () => (await statusCount('succeeded')) === 8, 10_000, 'all eight delivered', 20);
    } finally {
      release();
      await worker.stop();
    }
    expect(database.givenBack()).toBe(4);
    expect(sender.sent).toHaveLength(8);
    expect(new Set(sender.sent.map((request) => request.url)).size).toBe(8);
    const rows = await db.sql<{ attempt_count: number }[]>`select attempt_count from webhook_deliveries`;
    expect(rows.map((row) => row.attempt_count)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  }, 30_000);

  it('gives the claimed-ahead deliveries back at stop, without an attempt', async () => {
    const config = await eightDeliveries();
    const { worker, sender, release, database } = await heldWorker(config);
    await fourSentEightClaimed(sender);
    const stopped = worker.stop();
    release();
    await stopped;
    expect(sender.sent).toHaveLength(4);
    expect(await statusCount('succeeded')).toBe(4);
    expect(await statusCount('pending')).toBe(4);
    expect(database.givenBack()).toBe(4);
    const [attempts] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_attempts`;
    expect(attempts!.n).toBe(4);
  }, 30_000);
});
