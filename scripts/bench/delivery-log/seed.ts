import { randomUUID } from 'node:crypto';
import { DAY, systemClock } from '../../../src/clock.js';
import type { Sql } from '../../../src/db/connect.js';
import { createAccount, createWorkspace } from '../../../src/domain/accounts.js';
import { seedDeliveryLogDay } from '../../../src/seed/delivery-log-days.js';
import { seedTenants } from '../../../src/seed/tenants.js';

/**
 * The delivery log of `--log-rows n`: the 30 days before the seed's day, n / 30 finished deliveries
 * each (src/seed/delivery-log-days.ts, a day at a time into its partitions), so the log is what 30
 * days of retention keep, and 950 deliveries waiting in the queue (the `pending` filter). A day
 * missing (the retention measure drops the oldest) is seeded again by the next run.
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
    await seedDeliveryLogDay(sql, { ...record, day });
    log(`  log seed: ${day.toISOString().slice(0, 10)}, ${record.perDay.toLocaleString('en')} deliveries, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const [pick] = await sql<{ offer_id: string; id: string }[]>`
    select offer_id, id from webhook_messages where workspace_id = ${record.workspaceId}::uuid and created_at >= ${new Date(firstDay.getTime() + 10 * DAY)} order by created_at limit 1`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_delivery_log`;
  return { ...record, firstDay, rows: count!.n, offerId: pick!.offer_id, webhookId: pick!.id };
}

/** The owner, the logged workspace with its three endpoints, another workspace with one, and the queued deliveries. */
async function makeWorkspaces(sql: Sql, logRows: number, masterKey: Buffer): Promise<Record> {
  const owner = await createAccount(sql, systemClock, { email: `bench-log-${randomUUID()}@bench.offerdesk.example`, name: 'Log Owner' });
  const workspace = async (name: string) => (await createWorkspace(sql, systemClock, { name, timezone: 'UTC', currency: 'EUR', ownerAccountId: owner.id })).id;
  const [workspaceId, otherId] = [await workspace('Delivery log benchmark'), await workspace('Another logged workspace')];
  const rows = [workspaceId, workspaceId, workspaceId, otherId].map((id) => ({ workspaceId: id, kind: 'log' }));
  await seedTenants(sql, { rows, host: 'hooks.test', masterKey, queuePosition: () => 1, progress: () => {} });
  const endpointIds = (await sql<{ id: string }[]>`select id from webhook_endpoints where url like 'https://hooks.test/log/%' order by url`).map((r) => r.id);
  const today = new Date(Math.floor(Date.now() / DAY) * DAY);
  const record = { workspaceId, otherId, ownerId: owner.id, endpointIds, firstDay: new Date(today.getTime() - DAYS * DAY).toISOString(), days: DAYS, perDay: Math.round(logRows / DAYS) };
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
