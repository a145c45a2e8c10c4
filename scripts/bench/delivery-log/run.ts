import { randomUUID } from 'node:crypto';
import { DAY, ManualClock, systemClock } from '../../../src/clock.js';
import type { Sql } from '../../../src/db/connect.js';
import { createAccount, createWorkspace } from '../../../src/domain/accounts.js';
import { createSession } from '../../../src/domain/sessions.js';
import { deliveryLogRetentionJob, logPartitionsJob } from '../../../src/jobs/jobs.js';
import { DELIVERY_LOG_RETENTION_MS } from '../../../src/jobs/policy.js';
import { dropExpiredPartitions } from '../../../src/jobs/sql/dropExpiredPartitions.js';
import { createLogger } from '../../../src/log.js';
import { seedDeliveryLogDay } from '../../../test/support/seed/delivery-log-days.js';
import { seedTenants } from '../../../test/support/seed/tenants.js';
import { percentile } from '../numbers.js';
import { startService } from '../processes.js';
import { commitAll, measure, spread, type Bench, type RunStats } from '../webhooks/harness.js';
import { inOwnDatabase } from '../webhooks/scale.js';
import { clearDeliveries, seedOpenDeliveries } from '../webhooks/setup.js';

const PAGE = 50;
const PAGE_READS = 200;

/**
 * The delivery log at scale (`--log-rows n`; docs/performance.md): n finished deliveries over 30 days (docs/delivery-log.md
 * "Retention"), in a database of its own: its filters' pages, the worker beside it, the retention job.
 */
export async function deliveryLogPhase(main: Bench, emptyLog: RunStats) {
  const { logRows, workspaces, events, endpointsPerWorkspace } = main.options;
  return inOwnDatabase(main, `offerdesk_bench_log_${logRows}`, { workspaces, endpoints: endpointsPerWorkspace, idle: 0, busy: 0 }, async (b) => {
    const seeded = await ensureLogSeeded(b.sql, logRows, Buffer.from(b.env.OFFERDESK_MASTER_KEY!, 'base64'), main.log);
    const keepLogBefore = new Date(seeded.firstDay.getTime() + seeded.days * DAY);
    // The partitions the worker's job made on each day since the seed, each before its day began (the rows earlier
    // runs wrote to the default partition move into them, as the job moves them), so this run writes to today's.
    for (let at = keepLogBefore.getTime() - DAY; at <= Date.now(); at += DAY) await logPartitionsJob.run({ sql: b.sql, clock: new ManualClock(new Date(at)), logger: createLogger('warn') });
    await clearDeliveries(b.sql, keepLogBefore);
    const pages = await timeFilters(b, seeded);
    const withLog = await measure({ ...b, keepLogBefore }, 'throughput beside the log', 1, commitAll(b, spread(b, events)));
    const retention = await timeRetention(b.sql, seeded);
    main.log(`retention of the log's oldest day: ${retention.ms.toFixed(0)} ms (${retention.partitions} partitions, ${retention.rows} deliveries); its unused messages ${retention.messagesMs.toFixed(0)} ms`);
    return { rows: seeded.rows, days: seeded.days, pages, worstP95Ms: Math.max(...pages.map((p) => p.p95Ms)), withLog, ratio: withLog.perSecond / emptyLog.perSecond, retention };
  });
}

/** Each filter of the console's delivery log, PAGE_READS pages of PAGE rows over HTTP, walking its cursor. */
async function timeFilters({ sql, env, options, log }: Bench, seeded: SeededLog) {
  const service = await startService('service-log', env.DATABASE_URL, { OFFERDESK_MASTER_KEY: env.OFFERDESK_MASTER_KEY }, options.workDir);
  try {
    const { token } = await createSession(sql, systemClock, { accountId: seeded.ownerId, via: { label: 'bench', ip: null }, userAgent: 'offerdesk-bench', method: 'password' });
    const [a, , c] = seeded.endpointIds;
    const range = `since=${seeded.firstDay.toISOString()}&until=${new Date(seeded.firstDay.getTime() + 10 * DAY).toISOString()}`;
    const filters: [string, string][] = [
      ['no filter', ''],
      ...['failed', 'succeeded', 'pending', 'cancelled'].map((status): [string, string] => [`status=${status}`, `status=${status}`]),
      ['event_type=offer.expired', 'event_type=offer.expired'],
      ['endpoint (half the log)', `endpoint_id=${a}`],
      ['endpoint (2 % of the log)', `endpoint_id=${c}`],
      ['endpoint + status=failed', `endpoint_id=${c}&status=failed`],
      ['endpoint + event_type', `endpoint_id=${c}&event_type=offer.signed`],
      ['since/until (10 days)', range],
      ['status=failed + since/until', `status=failed&${range}`],
      ['q=offer id', `q=${seeded.offerId}`],
      ['q=webhook-id', `q=${seeded.webhookId}`],
    ];
    const results = [];
    for (const [name, query] of filters) {
      const times: number[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < PAGE_READS; i++) {
        const path = `/console/api/workspaces/${seeded.workspaceId}/deliveries?limit=${PAGE}&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const started = performance.now();
        const res = await fetch(`${service.origin}${path}`, { headers: { cookie: `offerdesk_session=${token}` } });
        const body = (await res.json()) as { next_cursor: string | null };
        times.push(performance.now() - started);
        if (res.status !== 200) throw new Error(`delivery log ${name}: ${res.status} ${JSON.stringify(body)}`);
        cursor = body.next_cursor;
      }
      results.push({ name, p50Ms: percentile(times.sort((x, y) => x - y), 50), p95Ms: percentile(times, 95), maxMs: times.at(-1)! });
      log(`delivery log ${name.padEnd(28)} p50 ${results.at(-1)!.p50Ms.toFixed(1)} ms, p95 ${results.at(-1)!.p95Ms.toFixed(1)} ms`);
    }
    return results;
  } finally {
    await service.proc.stop();
  }
}

/** The retention job on a clock just past the oldest day's 30 days (its perDay deliveries): partitions dropped, then the messages' cleanup. */
async function timeRetention(sql: Sql, seeded: SeededLog) {
  const clock = new ManualClock(new Date(seeded.firstDay.getTime() + 31 * DAY));
  const started = performance.now();
  const partitions = await dropExpiredPartitions(sql, { before: new Date(clock.now().getTime() - DELIVERY_LOG_RETENTION_MS) });
  const dropped = performance.now();
  await deliveryLogRetentionJob.run({ sql, clock, logger: createLogger('warn') });
  return { ms: dropped - started, partitions, rows: seeded.perDay, messagesMs: performance.now() - dropped };
}

/**
 * n / 30 finished deliveries for each of the 30 days before the seed's day, and 951 waiting for a retry due in a
 * year (the `pending` filter). All lie before the runs' writes (clearDeliveries keeps them); a missing day is seeded again.
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
  const seconds = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  let seeded = false;
  for (let d = 0; d < record.days; d++) {
    const day = new Date(firstDay.getTime() + d * DAY);
    const [present] = await sql`select 1 as found from webhook_delivery_log where finished_at >= ${day} and finished_at < ${new Date(day.getTime() + DAY)} limit 1`;
    if (present) continue;
    await seedDeliveryLogDay(sql, { ...record, day });
    seeded = true;
    log(`  log seed: ${day.toISOString().slice(0, 10)}, ${record.perDay.toLocaleString('en')} deliveries, ${seconds()}`);
  }
  if (seeded) log(`  log seed: days done at ${seconds()}, ANALYZE done at ${await sql`analyze webhook_delivery_log, webhook_attempts, webhook_messages`.then(seconds)}`);
  const [pick] = await sql<{ offer_id: string; id: string }[]>`
    select offer_id, id from webhook_messages where workspace_id = ${record.workspaceId}::uuid and created_at >= ${new Date(firstDay.getTime() + 10 * DAY)} order by created_at limit 1`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_delivery_log where finished_at < ${new Date(firstDay.getTime() + record.days * DAY)}`;
  return { ...record, firstDay, rows: count!.n, offerId: pick!.offer_id, webhookId: pick!.id };
}

/** The owner, the logged workspace with its three endpoints, another workspace with one, and the waiting deliveries. */
async function makeWorkspaces(sql: Sql, logRows: number, masterKey: Buffer): Promise<Record> {
  const owner = await createAccount(sql, systemClock, { email: `bench-log-${randomUUID()}@bench.offerdesk.example`, name: 'Log Owner' });
  const workspace = async (name: string) => (await createWorkspace(sql, systemClock, { name, timezone: 'UTC', currency: 'EUR', ownerAccountId: owner.id })).id;
  const [workspaceId, otherId] = [await workspace('Delivery log benchmark'), await workspace('Another logged workspace')];
  const rows = [workspaceId, workspaceId, workspaceId, otherId].map((id) => ({ workspaceId: id, kind: 'log' }));
  await seedTenants(sql, { rows, host: 'hooks.test', masterKey, queuePosition: () => 1, progress: () => {} });
  const endpointIds = (await sql<{ id: string }[]>`select id from webhook_endpoints where url like 'https://hooks.test/log/%' order by url`).map((r) => r.id);
  const today = new Date(Math.floor(Date.now() / DAY) * DAY);
  const record = { workspaceId, otherId, ownerId: owner.id, endpointIds, firstDay: new Date(today.getTime() - DAYS * DAY).toISOString(), days: DAYS, perDay: Math.round(logRows / DAYS) };
  await seedOpenDeliveries(sql, [workspaceId], 317, { written: new Date(today.getTime() - 60_000), due: new Date(today.getTime() + 365 * DAY) });
  await sql`insert into bench_log_setup (id, record) values (1, ${sql.json(record)})`;
  return record;
}
