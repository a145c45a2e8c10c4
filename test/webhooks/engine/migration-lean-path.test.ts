import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { migrate } from '../../../src/db/migrate.js';
import { createLogger } from '../../../src/log.js';
import { generateEndpointSecret, sealSecret } from '../../../src/sealing/secrets.js';
import { createWebhookEngine } from '../../../src/webhooks/engine/engine.js';
import { completeAttempts } from '../../../src/webhooks/sql/completeAttempts.js';
import { markFailedFinally } from '../../../src/webhooks/sql/markFailedFinally.js';
import { useDatabaseBefore } from '../../support/database-before.js';
import { fakeSender, MASTER_KEY, OK, sentOffer, START, webhookConfig, workspace, type EngineFixture } from './helpers.js';

/**
 * Migration 0036 on a database a worker of the release before is draining (README "Upgrading"):
 * open deliveries, attempts in flight under a live lease and under a passed one, a delivery
 * waiting for its retry and one that failed finally. After it, this release's worker drains the
 * queue beside the old worker's outcome: every delivery is sent once, the old worker's attempt is
 * not taken from it while its lease holds, and nothing stays in flight.
 */
const db = useDatabaseBefore('webhook_claim_hot');

describe('migration webhook_claim_hot', () => {
  it('drains open, leased and failed deliveries of the release before once each, beside its worker', async () => {
    const clock = new ManualClock(START);
    const sender = fakeSender();
    const deps = {
      sql: db.sql,
      clock,
      sender,
      masterKey: Buffer.from(MASTER_KEY, 'base64'),
      logger: createLogger('silent'),
      settings: { startsPerMinutePerWorkspace: 60, concurrency: 8, leaseMs: 60_000 },
    };
    const f = { sql: db.sql, clock, manage: { sql: db.sql, clock, config: webhookConfig(), masterKey: deps.masterKey } } as unknown as EngineFixture;
    const ws = await workspace(f);
    // The endpoint as the release before made it: joinFairnessQueue of this release writes the
    // ring's cursor, which a later migration (0037) makes.
    const ep = { id: randomUUID() };
    await db.sql`
      insert into webhook_endpoints (id, workspace_id, url, event_types, secret_sealed, created_at, updated_at)
      values (${ep.id}::uuid, ${ws.workspaceId}::uuid, 'https://hooks.test/a', ${['offer.sent']}::text[],
              ${sealSecret(deps.masterKey, ep.id, generateEndpointSecret())}, ${clock.now()}, ${clock.now()})`;
    await db.sql`insert into webhook_workspace_state (workspace_id, queue_position) values (${ws.workspaceId}::uuid, 1)`;
    for (let i = 0; i < 5; i++) await sentOffer(f, ws.workspaceId, `Offer ${i}`);
    const engine = createWebhookEngine(deps);
    await engine.fanOut();
    const ids = (await db.sql<{ id: string; message_id: string }[]>`select id, message_id from webhook_queue order by created_at, id`).map((row) => row);
    expect(ids).toHaveLength(5);
    const [open, leased, stale, retrying, failed] = ids as [(typeof ids)[number], (typeof ids)[number], (typeof ids)[number], (typeof ids)[number], (typeof ids)[number]];
    const now = clock.now();
    const later = (ms: number) => new Date(now.getTime() + ms);
    // As the release before leaves them: an attempt in flight with 60 s of lease left (a worker
    // without a liveness id, which only its lease vouches for), one whose worker died, one
    // waiting 30 s for its retry, one that failed finally.
    await db.sql`
      update webhook_queue
         set status = 'sending', lease_token = gen_random_uuid(), lease_until = ${later(60_000)}, lease_worker = null
       where id = ${leased.id}::uuid`;
    await db.sql`
      update webhook_queue
         set status = 'sending', lease_token = gen_random_uuid(), lease_until = ${later(-1_000)}, lease_worker = null
       where id = ${stale.id}::uuid`;
    await db.sql`update webhook_queue set attempt_count = 1, next_attempt_at = ${later(30_000)} where id = ${retrying.id}::uuid`;
    const [failedLease] = await db.sql<{ lease_token: string }[]>`
      update webhook_queue
         set status = 'sending', attempt_count = 7, lease_token = gen_random_uuid(), lease_until = ${later(60_000)}
       where id = ${failed.id}::uuid
      returning lease_token`;
    expect(await markFailedFinally(db.sql, { deliveryId: failed.id, leaseToken: failedLease!.lease_token, now, lastResponseStatus: 500 })).toBe(true);

    expect(await migrate(db.sql)).toContain(db.migration.version);
    expect((await db.sql`select delivery_id from webhook_in_flight order by delivery_id`).map((row) => row.delivery_id)).toEqual(
      [leased.id, stale.id].sort(),
    );

    // This release's worker: the open delivery and the dead worker's attempt, not the live lease
    // (which counts toward the endpoint's share of attempts in flight meanwhile).
    await engine.dispatchOnce();
    await engine.dispatchOnce();
    await engine.dispatchOnce();
    expect(sender.sent.map((request) => request.messageId).sort()).toEqual([open.message_id, stale.message_id].sort());

    // The old worker records its attempt as it always did (the same statement, by lease token).
    const [held] = await db.sql<{ lease_token: string }[]>`select lease_token from webhook_queue where id = ${leased.id}::uuid`;
    const recorded = await completeAttempts(db.sql, [
      {
        deliveryId: leased.id, leaseToken: held!.lease_token, endpointId: ep.id, attempt: 1, attemptedAt: now, succeeded: true,
        statusCode: 200, error: null, durationMs: 5, responsePrefix: 'ok', nextAttemptAt: null, finishedAt: now, resetsStreak: true,
      },
    ]);
    expect([...recorded]).toEqual([leased.id]);

    // The retry comes due, and past the old lease nothing is left to take over.
    sender.reply(() => OK);
    clock.set(later(61_000));
    await engine.dispatchOnce();
    await engine.dispatchOnce();

    const sentIds = sender.sent.map((request) => request.messageId);
    expect(sentIds.sort()).toEqual([open.message_id, stale.message_id, retrying.message_id].sort());
    expect(await db.sql`select id from webhook_queue`).toEqual([]);
    expect(await db.sql`select delivery_id from webhook_in_flight`).toEqual([]);
    const log = await db.sql<{ id: string; status: string }[]>`select id, status from webhook_delivery_log`;
    expect(Object.fromEntries(log.map((row) => [row.id, row.status]))).toEqual({
      [open.id]: 'succeeded',
      [leased.id]: 'succeeded',
      [stale.id]: 'succeeded',
      [retrying.id]: 'succeeded',
      [failed.id]: 'failed',
    });
  });
});
