import { randomUUID } from 'node:crypto';
import { DAY, systemClock } from '../../../src/clock.js';
import type { Sql } from '../../../src/db/connect.js';
import { createAccount, createWorkspace } from '../../../src/domain/accounts.js';
import { SEED_TYPES } from '../../../src/seed/delivery-log.js';
import { generateEndpointSecret, sealSecret } from '../../../src/sealing/secrets.js';

/**
 * The delivery log of `--log-rows n`, seeded set-based one UTC day at a time into its day's
 * partitions (webhook_delivery_log_pYYYYMMDD, webhook_attempts_pYYYYMMDD): the 30 days before the
 * seed's day, n / 30 finished deliveries each, so the log is what 30 days of retention keep. Of each
 * day's deliveries 88 % go to two endpoints of the logged workspace that share its messages, 2 % to
 * a third, 10 % to another workspace; 6 % failed (8 attempts), 2 % cancelled (none), the rest
 * succeeded (one); types cycle through six, four events per offer. Besides them 950 deliveries wait
 * in the queue (the `pending` filter). A day missing (the retention measure drops the oldest) is
 * seeded again by the next run. Progress is printed per day.
 */
export type SeededLog = Awaited<ReturnType<typeof ensureLogSeeded>>;
type Record = { workspaceId: string; otherId: string; ownerId: string; endpointIds: string[]; firstDay: string; days: number; perDay: number };

const DAYS = 30;

export async function ensureLogSeeded(sql: Sql, rows: number, masterKey: Buffer, log: (line: string) => void) {
  await sql`create table if not exists bench_log_setup (id int constraint bench_log_setup_pkey primary key, record jsonb not null)`;
  const [kept] = await sql<{ record: Record }[]>`select record from bench_log_setup where id = 1`;
  const record = kept?.record ?? (await makeWorkspaces(sql, rows, masterKey));
  const firstDay = new Date(record.firstDay);
  const started = performance.now();
  for (let d = 0; d < record.days; d++) {
    const day = new Date(firstDay.getTime() + d * DAY);
    const [present] = await sql`select 1 as found from webhook_delivery_log where finished_at >= ${day} and finished_at < ${new Date(day.getTime() + DAY)} limit 1`;
    if (present) continue;
    await seedDay(sql, record, day);
    log(`  log seed: ${day.toISOString().slice(0, 10)}, ${record.perDay.toLocaleString('en')} deliveries, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const [pick] = await sql<{ offer_id: string; id: string }[]>`
    select offer_id, id from webhook_messages where workspace_id = ${record.workspaceId}::uuid and created_at >= ${new Date(firstDay.getTime() + 10 * DAY)} order by created_at limit 1`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_delivery_log`;
  return { ...record, firstDay, rows: count!.n, offerId: pick!.offer_id, webhookId: pick!.id };
}

/** The owner, the logged workspace with its three endpoints, another workspace with one, and the queued deliveries. */
async function makeWorkspaces(sql: Sql, rows: number, masterKey: Buffer): Promise<Record> {
  const owner = await createAccount(sql, systemClock, { email: `bench-log-${randomUUID()}@bench.offerdesk.example`, name: 'Log Owner' });
  const workspace = async (name: string) => (await createWorkspace(sql, systemClock, { name, timezone: 'UTC', currency: 'EUR', ownerAccountId: owner.id })).id;
  const [workspaceId, otherId] = [await workspace('Delivery log benchmark'), await workspace('Another logged workspace')];
  const endpointIds = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  await sql`
    insert into webhook_endpoints (id, workspace_id, url, event_types, secret_sealed, created_by, created_at, updated_at)
    select id, case when n = 4 then ${otherId}::uuid else ${workspaceId}::uuid end, 'https://hooks.test/log/' || n, ${[...SEED_TYPES]}::text[], decode(sealed, 'hex'), ${owner.id}::uuid, now(), now()
      from unnest(${endpointIds}::uuid[], ${endpointIds.map((id) => sealSecret(masterKey, id, generateEndpointSecret()).toString('hex'))}::text[]) with ordinality as t(id, sealed, n)`;
  const today = new Date(Math.floor(Date.now() / DAY) * DAY);
  const record = { workspaceId, otherId, ownerId: owner.id, endpointIds, firstDay: new Date(today.getTime() - DAYS * DAY).toISOString(), days: DAYS, perDay: Math.round(rows / DAYS) };
  await sql`select webhook_log_partitions_ensure(${record.firstDay}::date - 1, ${today}::date + 1)`;
  await sql`
    with msgs as (
      insert into webhook_messages (id, workspace_id, type, body, offer_id, created_at)
      select gen_random_uuid(), ${workspaceId}::uuid, 'offer.sent', '{"seed":true}', gen_random_uuid(), now() - make_interval(secs => i)
        from generate_series(1, 475) as i
      returning id, created_at
    )
    insert into webhook_queue (message_id, endpoint_id, workspace_id, event_type, status, max_attempts, next_attempt_at, created_at, updated_at)
    select m.id, e.id, ${workspaceId}::uuid, 'offer.sent', 'pending', 8, m.created_at, m.created_at, m.created_at
      from msgs m cross join unnest(${endpointIds.slice(0, 2)}::uuid[]) as e(id)`;
  await sql`insert into bench_log_setup (id, record) values (1, ${sql.json(record)})`;
  return record;
}

/**
 * One day: its messages, their deliveries into the day's log partition and their attempts into the
 * day's attempts partition, in one transaction (a day is all there or not at all). Delivery i of
 * the day finishes at day + 10 s + i x (the day / its count); its attempts lie seconds before.
 */
async function seedDay(sql: Sql, r: Record, day: Date) {
  const [a, b, c, o] = r.endpointIds as [string, string, string, string];
  const shared = Math.round(r.perDay * 0.44);
  const [small, other] = [Math.round(r.perDay * 0.02), r.perDay - 2 * shared - Math.round(r.perDay * 0.02)];
  const step = (DAY - 10_000) / Math.max(shared + small + other, 1);
  await sql.begin(async (tx) => {
    await tx`
      create temporary table day_messages on commit drop as
      select gen_random_uuid() as id, i,
             case when i < ${shared + small} then ${r.workspaceId}::uuid else ${r.otherId}::uuid end as workspace_id,
             case when i < ${shared} then array[${a}::uuid, ${b}::uuid] when i < ${shared + small} then array[${c}::uuid] else array[${o}::uuid] end as endpoints,
             (${[...SEED_TYPES]}::text[])[1 + i % 6] as type,
             md5(${day.toISOString()} || ':' || (i / 4)::text)::uuid as offer_id,
             ${day}::timestamptz + make_interval(secs => 10 + i * ${step / 1000}) as finished_at,
             case when i % 100 < 6 then 'failed' when i % 100 < 8 then 'cancelled' else 'succeeded' end as status
        from generate_series(0, ${shared + small + other - 1}) as i`;
    await tx`
      insert into webhook_messages (id, workspace_id, type, body, offer_id, created_at)
      select id, workspace_id, type, '{"seed":true}', offer_id, finished_at - interval '9 seconds' from day_messages`;
    await tx`
      create temporary table day_deliveries on commit drop as
      select gen_random_uuid() as id, m.id as message_id, e.id as endpoint_id, m.workspace_id, m.type, m.status, m.finished_at
        from day_messages m cross join unnest(m.endpoints) as e(id)`;
    await tx`
      insert into webhook_delivery_log
        (id, message_id, endpoint_id, workspace_id, event_type, is_test, status, attempt_count, max_attempts, failure_reason, created_at, updated_at, finished_at)
      select id, message_id, endpoint_id, workspace_id, type, false, status,
             case status when 'succeeded' then 1 when 'failed' then 8 else 0 end, 8,
             case when status = 'cancelled' then 'endpoint_paused' end, finished_at - interval '9 seconds', finished_at, finished_at
        from day_deliveries`;
    await tx`
      insert into webhook_attempts (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
      select d.id, d.endpoint_id, k, d.finished_at - make_interval(secs => 9 - k), d.status = 'succeeded', case when d.status = 'succeeded' then 200 else 500 end, 40
        from day_deliveries d cross join generate_series(1, case d.status when 'succeeded' then 1 when 'failed' then 8 else 0 end) as k`;
  });
  await sql`analyze webhook_delivery_log, webhook_attempts, webhook_messages`;
}
