import type { Sql } from '../../../src/db/connect.js';
import { cpuSnapshot, describeCpu, phaseCpu, type CpuSnapshot, type PhaseCpu } from './cpu.js';
import type { Receiver } from './harness.js';
import { runMeasured } from './measured-process.js';

/**
 * The PostgreSQL queue floor phase: what one process delivers when the deliveries come from and
 * are recorded in PostgreSQL by the simplest durable queue (floor-queue.ts), on the same machine,
 * to the same receiver, through the same sender at the same concurrency as the baseline. Its rate
 * over the baseline's bounds what any PostgreSQL-backed worker could reach here; the worker's gap
 * below it is the product's own bookkeeping (SPEC.md "Webhook limits", attempt log, fan-out).
 * The queue is a table of its own, made and dropped by this phase, never the product's tables.
 */
export const FLOOR_TABLE = 'bench_floor_queue';

export interface FloorResults {
  sent: number;
  ok: number;
  seconds: number;
  perSecond: number;
  claims: number;
  outcomeWrites: number;
  /** Statements (claims and outcome writes, each its own transaction) per delivery. */
  statementsPerDelivery: number;
  /** perSecond over the baseline sender's. */
  ratio: number;
  cpu: PhaseCpu;
}

/** Fills the queue with `count` deliveries of the throughput run, in the baseline's order. */
async function fillQueue(sql: Sql, count: number): Promise<number> {
  const table = sql(FLOOR_TABLE);
  await sql`drop table if exists ${table}`;
  await sql`
    create table ${table} (
      id bigint generated always as identity constraint bench_floor_queue_pkey primary key,
      endpoint_id uuid not null,
      url text not null,
      message_id uuid not null,
      body text not null,
      status text not null default 'pending',
      attempts int not null default 0,
      next_attempt_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`;
  await sql`create index bench_floor_queue_due_idx on ${table} (next_attempt_at, id) where status = 'pending'`;
  const rows = await sql`
    insert into ${table} (endpoint_id, url, message_id, body)
    select e.id, e.url, m.id, m.body
      from webhook_deliveries d
      join webhook_messages m on m.id = d.message_id
      join webhook_endpoints e on e.id = d.endpoint_id
     where e.removed_at is null and e.url not like '%/fail/%'
     order by d.created_at, d.id
     limit ${count}`;
  await sql`analyze ${table}`;
  return rows.count;
}

export async function floorPhase(
  sql: Sql,
  receiver: Receiver,
  env: Record<string, string>,
  options: { count: number; concurrency: number; baselinePerSecond: number; log: (line: string) => void },
): Promise<FloorResults> {
  try {
    const queued = await fillQueue(sql, options.count);
    await receiver.reset();
    const { result, start, end, pid } = await runMeasured<Omit<FloorResults, 'statementsPerDelivery' | 'ratio' | 'cpu'>, CpuSnapshot>(
      'floor-queue',
      'webhooks/floor-queue.ts',
      [String(options.concurrency)],
      env,
      (floorPid) => cpuSnapshot(sql, { workers: [floorPid], receiver: receiver.proc.pid }),
      Math.max(120_000, queued * 10),
    );
    const [left] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(FLOOR_TABLE)} where status <> 'delivered'`;
    if (left!.n > 0 || result.ok !== queued) throw new Error(`floor queue: ${left!.n} of ${queued} not recorded as delivered, ${result.ok} answered 2xx`);
    const cpu = phaseCpu(start, end, { workers: [pid], receiver: receiver.proc.pid }, result.sent);
    const floor: FloorResults = {
      ...result,
      statementsPerDelivery: (result.claims + result.outcomeWrites) / Math.max(1, result.sent),
      ratio: result.perSecond / options.baselinePerSecond,
      cpu,
    };
    options.log(
      `postgres queue floor   ${floor.sent} deliveries in ${floor.seconds.toFixed(1)} s = ${floor.perSecond.toFixed(0)}/s; floor/baseline ${floor.ratio.toFixed(2)}, ` +
        `${floor.claims} claims, ${floor.outcomeWrites} outcome writes\n${describeCpu(cpu)}`,
    );
    return floor;
  } finally {
    await sql`drop table if exists ${sql(FLOOR_TABLE)}`;
  }
}
