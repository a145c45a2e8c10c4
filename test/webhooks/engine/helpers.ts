import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ManualClock, type Clock } from '../../../src/clock.js';
import { loadConfig, type WebhookConfig } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { addMember, createAccount } from '../../../src/domain/accounts.js';
import { createLogger } from '../../../src/log.js';
import type { EngineDeps, EngineSettings } from '../../../src/webhooks/engine/deps.js';
import { createWebhookEngine, type WebhookEngine } from '../../../src/webhooks/engine/engine.js';
import { addEndpoint, type ManagementDeps } from '../../../src/webhooks/management/endpoints.js';
import { OFFER_WEBHOOK_TYPES } from '../../../src/domain/outbox.js';
import type { AttemptOutcome, SendRequest, WebhookSender } from '../../../src/webhooks/transport/sender.js';
import { sentOffer as buildSentOffer, workspace as buildWorkspace } from '../../support/builders.js';
import { freshDatabase, type TestDatabase } from '../../support/database.js';

export const START = '2026-01-15T10:00:00.000Z';
export const MASTER_KEY = randomBytes(32).toString('base64');

export const OK: AttemptOutcome = { ok: true, status: 200, durationMs: 5, responsePrefix: 'ok' };
export const FAIL: AttemptOutcome = { ok: false, status: 500, error: 'status 500', durationMs: 5, responsePrefix: 'oops' };

/** A sender that records what it was asked to send and answers as the test scripts it. */
export interface FakeSender extends WebhookSender {
  sent: SendRequest[];
  reply(plan: (request: SendRequest, index: number) => AttemptOutcome | Promise<AttemptOutcome>): void;
}

export function fakeSender(): FakeSender {
  let plan: (request: SendRequest, index: number) => AttemptOutcome | Promise<AttemptOutcome> = () => OK;
  const sent: SendRequest[] = [];
  return {
    sent,
    reply(next) {
      plan = next;
    },
    async send(request) {
      const index = sent.push(request) - 1;
      return plan(request, index);
    },
    async close() {},
  };
}

export function webhookConfig(env: Record<string, string> = {}): WebhookConfig {
  return loadConfig({
    OFFERDESK_MASTER_KEY: MASTER_KEY,
    OFFERDESK_WEBHOOK_DEV_RESOLVE: 'hooks.test=127.0.0.1:8443,other.test=127.0.0.1:8443,a.hooks.test=127.0.0.1:8443',
    ...env,
  }).webhooks;
}

export interface EngineFixture {
  db: TestDatabase;
  sql: Sql;
  clock: ManualClock;
  sender: FakeSender;
  engine: WebhookEngine;
  deps: EngineDeps;
  manage: ManagementDeps;
  /** A second engine on the same database (another worker). */
  anotherEngine(sender?: WebhookSender): WebhookEngine;
  /** Back to an empty database at START with a sender answering 200. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function engineFixture(settings: Partial<EngineSettings> = {}): Promise<EngineFixture> {
  const db = await freshDatabase();
  const clock = new ManualClock(START);
  const sender = fakeSender();
  const masterKey = Buffer.from(MASTER_KEY, 'base64');
  const logger = createLogger('silent');
  const deps: EngineDeps = {
    sql: db.sql,
    clock,
    sender,
    masterKey,
    logger,
    settings: { startsPerMinutePerWorkspace: 60, concurrency: 8, leaseMs: 60_000, ...settings },
  };
  return {
    db,
    sql: db.sql,
    clock,
    sender,
    deps,
    engine: createWebhookEngine(deps),
    manage: { sql: db.sql, clock, config: webhookConfig(), masterKey },
    anotherEngine: (other = sender) => createWebhookEngine({ ...deps, sender: other }),
    async reset() {
      await db.sql`truncate accounts, workspaces, worker_jobs, webhook_round_robin restart identity cascade`;
      clock.set(START);
      sender.sent.length = 0;
      sender.reply(() => OK);
    },
    close: () => db.drop(),
  };
}

/**
 * One database per test file (dropping a database forces a checkpoint, too slow per test) and
 * an empty one per test: every test starts with no accounts, workspaces, offers or webhooks.
 */
export function useEngineFixture(settings: Partial<EngineSettings> = {}): EngineFixture {
  const f = {} as EngineFixture;
  beforeAll(async () => {
    Object.assign(f, await engineFixture(settings));
  });
  beforeEach(async () => {
    await f.reset();
  });
  afterAll(async () => {
    await f.close();
  });
  return f;
}

let counter = 0;

/** A workspace with its owner (support/builders.ts); `offerDomain` is made verified. */
export async function workspace(f: { sql: Sql; clock: Clock }, input: { offerDomain?: string } = {}) {
  return buildWorkspace(f.sql, f.clock, input);
}

export async function memberOf(f: { sql: Sql; clock: Clock }, workspaceId: string, role: 'owner' | 'admin' | 'member') {
  counter += 1;
  const account = await createAccount(f.sql, f.clock, { email: `${role}-${counter}@agency.test`, name: `A ${role}` });
  await addMember(f.sql, f.clock, { actorId: null, workspaceId, accountId: account.id, role });
  return account.id;
}

export async function endpoint(
  f: EngineFixture,
  ws: { workspaceId: string; ownerId: string },
  input: { url?: string; events?: string[] } = {},
) {
  return addEndpoint(f.manage, {
    workspaceId: ws.workspaceId,
    url: input.url ?? 'https://hooks.test/webhooks',
    events: input.events ?? [...OFFER_WEBHOOK_TYPES],
    actorId: ws.ownerId,
  });
}

/** A sent offer: one offer.sent event in the outbox (support/builders.ts). */
export async function sentOffer(f: { sql: Sql; clock: Clock }, workspaceId: string, title?: string) {
  return buildSentOffer(f.sql, f.clock, workspaceId, title);
}

/**
 * Many outbox events at once for the limit tests: one sent offer plus `count` further timeline
 * entries, each with its offer.first_viewed outbox row, written set-based in one statement.
 */
export async function manyEvents(f: EngineFixture, workspaceId: string, count: number): Promise<void> {
  const offerId = await sentOffer(f, workspaceId, 'Bulk');
  // The offer.sent row of sentOffer is one event as well; drop it to keep counts exact.
  await f.sql`delete from webhook_outbox where offer_id = ${offerId}::uuid`;
  const now = f.clock.now();
  await f.sql`
    with bumped as (
      update offers set last_sequence = last_sequence + ${count} where id = ${offerId}::uuid
      returning last_sequence - ${count} as base
    ),
    entries as (
      insert into offer_events (offer_id, sequence, type, occurred_at, version, data)
      select ${offerId}::uuid, bumped.base + g, 'viewed', ${now}, 1, '{}'::jsonb
        from bumped, generate_series(1, ${count}) g
      returning sequence
    )
    insert into webhook_outbox (workspace_id, type, offer_id, offer_sequence, occurred_at, available_at, created_at)
    select ${workspaceId}::uuid, 'offer.first_viewed', ${offerId}::uuid, sequence, ${now}, ${now}, ${now}
      from entries`;
}

/** Deliveries of an endpoint by status. */
export async function statusCounts(sql: Sql, endpointId: string): Promise<Record<string, number>> {
  const rows = await sql<{ status: string; n: number }[]>`
    select status, count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointId}::uuid group by status`;
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

/** Fan out, then attempt everything due now (repeating until nothing is due). */
export async function deliverDue(f: EngineFixture): Promise<void> {
  await f.engine.fanOut();
  for (;;) {
    const outcomes = await f.engine.dispatchOnce();
    if (outcomes.length === 0) return;
  }
}

/** Moves the clock to the earliest due time of a pending delivery; false when none is pending. */
export async function advanceToNextDue(f: EngineFixture): Promise<boolean> {
  const [row] = await f.sql<{ due: Date | null }[]>`
    select min(next_attempt_at) as due from webhook_deliveries where status = 'pending'`;
  if (!row?.due) return false;
  if (row.due.getTime() > f.clock.now().getTime()) f.clock.set(row.due);
  return true;
}

/** Runs every pending delivery through its schedule on the controlled clock until none is open. */
export async function runSchedulesToEnd(f: EngineFixture): Promise<void> {
  await f.engine.fanOut();
  for (let guard = 0; guard < 10_000; guard++) {
    await f.engine.dispatchOnce();
    if (!(await advanceToNextDue(f))) return;
  }
  throw new Error('schedules did not end');
}
