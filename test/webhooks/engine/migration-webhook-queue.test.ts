import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../src/db/migrate.js';
import { dropExpiredPartitions } from '../../../src/jobs/sql/dropExpiredPartitions.js';
import { WORKER_LOCK_CLASS } from '../../../src/webhooks/engine/liveness.js';
import { useDatabaseBefore } from '../../support/database-before.js';

/**
 * Migrations 0019 and 0020 (and every one after them) on a database whose webhook_deliveries holds open and
 * finished deliveries with their attempts: open ones move into webhook_queue with their id,
 * schedule, lease and webhook-id, finished ones stay in the delivery log, no attempt is lost, and
 * the old rows become one legacy partition of the log and of the attempts, dropped whole by
 * retention once their range is past.
 */
const db = useDatabaseBefore('webhook_queue');

const at = (iso: string) => new Date(iso);

const DELIVERY_COLUMNS = `id, message_id, endpoint_id, workspace_id, event_type, is_test, status, attempt_count, max_attempts,
  next_attempt_at, lease_token, lease_until, lease_worker, resend_count, failure_reason, created_at, updated_at, finished_at`;

async function oldWorld() {
  const [ws] = await db.sql<{ id: string }[]>`insert into workspaces (name, timezone, currency) values ('Old', 'UTC', 'EUR') returning id`;
  const created = at('2026-01-10T08:00:00.000Z');
  const [ep] = await db.sql<{ id: string }[]>`
    insert into webhook_endpoints (workspace_id, url, event_types, secret_sealed, created_at, updated_at)
    values (${ws!.id}::uuid, 'https://hooks.example.com/a', ${['offer.sent']}::text[], ${randomBytes(40)}, ${created}, ${created})
    returning id`;
  const rows = [
    { status: 'pending', attempt_count: 2, next_attempt_at: at('2026-01-15T10:30:00.000Z'), lease: false, finished_at: null },
    { status: 'pending', attempt_count: 0, next_attempt_at: at('2026-01-15T09:00:00.000Z'), lease: false, finished_at: null },
    { status: 'sending', attempt_count: 1, next_attempt_at: at('2026-01-15T09:59:00.000Z'), lease: true, finished_at: null },
    { status: 'succeeded', attempt_count: 1, next_attempt_at: at('2026-01-12T08:00:00.000Z'), lease: false, finished_at: at('2026-01-12T08:00:01.000Z') },
    { status: 'failed', attempt_count: 8, next_attempt_at: at('2026-01-11T08:00:00.000Z'), lease: false, finished_at: at('2026-01-11T08:00:02.000Z') },
    { status: 'cancelled', attempt_count: 0, next_attempt_at: at('2026-01-13T08:00:00.000Z'), lease: false, finished_at: at('2026-01-13T08:00:03.000Z') },
  ];
  for (const [i, row] of rows.entries()) {
    const messageId = randomUUID();
    const body = JSON.stringify({ id: messageId, type: 'offer.sent', data: { n: i } });
    await db.sql`
      insert into webhook_messages (id, workspace_id, type, body, created_at)
      values (${messageId}::uuid, ${ws!.id}::uuid, 'offer.sent', ${body}, ${created})`;
    const [delivery] = await db.sql<{ id: string }[]>`
      insert into webhook_deliveries
        (message_id, endpoint_id, workspace_id, event_type, status, attempt_count, max_attempts, next_attempt_at,
         lease_token, lease_until, lease_worker, resend_count, failure_reason, created_at, updated_at, finished_at)
      values (${messageId}::uuid, ${ep!.id}::uuid, ${ws!.id}::uuid, 'offer.sent', ${row.status}, ${row.attempt_count}, 8,
              ${row.next_attempt_at}, ${row.lease ? randomUUID() : null}::uuid, ${row.lease ? at('2026-01-15T10:01:00.000Z') : null},
              ${row.lease ? 77 : null}, ${i === 4 ? 2 : 0}, ${row.status === 'cancelled' ? 'endpoint_paused' : null},
              ${created}, ${row.finished_at ?? created}, ${row.finished_at})
      returning id`;
    for (let n = 1; n <= row.attempt_count; n++) {
      await db.sql`
        insert into webhook_attempts (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
        values (${delivery!.id}::uuid, ${ep!.id}::uuid, ${n}, ${at(`2026-01-1${n % 5}T08:00:00.000Z`)}, false, 500, 7)`;
    }
  }
}

describe('migration webhook_queue', () => {
  it('refuses to run while a worker holds its liveness lock, and changes nothing', async () => {
    await oldWorld();
    await db.sql`select pg_advisory_lock(${WORKER_LOCK_CLASS}::int, 4242)`;
    try {
      await expect(migrate(db.sql)).rejects.toThrow(/workers are running/);
    } finally {
      await db.sql`select pg_advisory_unlock(${WORKER_LOCK_CLASS}::int, 4242)`;
    }
    expect(await db.sql`select 1 from schema_migrations where version = ${db.migration.version}`).toHaveLength(0);
    expect(await db.sql`select count(*)::int as n from webhook_deliveries`).toEqual([{ n: 6 }]);
  });

  it('moves open deliveries into the queue with their id, schedule, lease and webhook-id, keeps the finished ones and every attempt', async () => {
    const before = await db.sql.unsafe(`select ${DELIVERY_COLUMNS} from webhook_deliveries order by id`);
    const attemptsBefore = await db.sql`select id, delivery_id, endpoint_id, attempt, attempted_at from webhook_attempts order by id`;
    expect(before).toHaveLength(6);

    expect(await migrate(db.sql)).toContain(db.migration.version);

    // The view shows every delivery exactly as the table held it.
    expect(await db.sql.unsafe(`select ${DELIVERY_COLUMNS} from webhook_deliveries order by id`)).toEqual(before);
    const open = before.filter((d) => d.status === 'pending' || d.status === 'sending');
    const queued = await db.sql`
      select id, message_id, status, attempt_count, next_attempt_at, lease_token, lease_until, lease_worker
        from webhook_queue order by id`;
    expect(queued).toEqual(
      open.map((d) => ({
        id: d.id,
        message_id: d.message_id,
        status: d.status,
        attempt_count: d.attempt_count,
        next_attempt_at: d.next_attempt_at,
        lease_token: d.lease_token,
        lease_until: d.lease_until,
        lease_worker: d.lease_worker,
      })),
    );
    const logged = await db.sql<{ id: string; status: string }[]>`select id, status from webhook_delivery_log order by id`;
    expect(logged).toEqual(before.filter((d) => !open.includes(d)).map((d) => ({ id: d.id, status: d.status })));
    expect(await db.sql`select id, delivery_id, endpoint_id, attempt, attempted_at from webhook_attempts order by id`).toEqual(attemptsBefore);
  });

  it('keeps the old rows as a legacy partition of each table, numbers new attempts after the old ones, and lets retention drop it whole', async () => {
    const parts = await db.sql<{ parent: string; name: string; lower_bound: Date | null; upper_bound: Date }[]>`
      select t.parent, p.name, p.lower_bound, p.upper_bound
        from unnest(array['webhook_delivery_log', 'webhook_attempts']) as t(parent)
       cross join lateral webhook_log_partitions(t.parent::regclass) p
       order by t.parent, p.upper_bound`;
    const legacy = parts.filter((p) => p.lower_bound === null);
    expect(legacy.map((p) => p.name).sort()).toEqual(['webhook_attempts_legacy', 'webhook_delivery_log_legacy']);
    // Up to the start of the next UTC day after the migration; the days after it follow.
    const tomorrow = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 86_400_000);
    for (const p of legacy) expect(p.upper_bound.getTime()).toBeGreaterThanOrEqual(tomorrow.getTime() - 86_400_000);
    for (const parent of ['webhook_delivery_log', 'webhook_attempts']) {
      const [old] = legacy.filter((p) => p.parent === parent);
      expect(parts.some((p) => p.parent === parent && p.lower_bound?.getTime() === old!.upper_bound.getTime())).toBe(true);
    }
    expect(await db.sql`select distinct tableoid::regclass::text as part from webhook_delivery_log`).toEqual([{ part: 'webhook_delivery_log_legacy' }]);

    const [last] = await db.sql<{ id: string; delivery_id: string; endpoint_id: string }[]>`
      select id, delivery_id, endpoint_id from webhook_attempts order by id desc limit 1`;
    const [added] = await db.sql<{ id: string }[]>`
      insert into webhook_attempts (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
      values (${last!.delivery_id}::uuid, ${last!.endpoint_id}::uuid, 9, now(), true, 200, 5)
      returning id`;
    expect(BigInt(added!.id)).toBe(BigInt(last!.id) + 1n);

    const before = legacy[0]!.upper_bound;
    expect(await dropExpiredPartitions(db.sql, { before: new Date(before.getTime() - 1) })).toBe(0);
    expect(await dropExpiredPartitions(db.sql, { before })).toBe(legacy.filter((p) => p.upper_bound <= before).length);
    expect(await db.sql`select to_regclass('webhook_delivery_log_legacy') as gone`).toEqual([{ gone: null }]);
    expect(await db.sql`select count(*)::int as n from webhook_deliveries`).toEqual([{ n: 3 }]);
  });
});
