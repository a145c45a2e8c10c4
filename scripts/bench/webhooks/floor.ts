import type { Sql } from '../../../src/db/connect.js';
import { cpuSnapshot, describeCpu, phaseCpu, type CpuSnapshot, type PhaseCpu } from './cpu.js';
import type { Receiver } from './harness.js';
import { dropFloorTables, fillFloor, undelivered, type FloorShape } from './floor-shapes.js';
import { runMeasured } from './measured-process.js';

/**
 * The PostgreSQL queue floor phase: what one process delivers when the deliveries come from and
 * are recorded in PostgreSQL by the simplest durable queue (floor-queue.ts; the other shapes of
 * floor-shapes.ts add what the product writes, layer by layer), on the same machine,
 * to the same receiver, through the same sender at the same concurrency as the baseline. Its rate
 * over the baseline's bounds what any PostgreSQL-backed worker could reach here; the worker's gap
 * below it is the product's own bookkeeping (SPEC.md "Webhook limits", attempt log, fan-out).
 * The queue's tables are its own, made and dropped by this phase, never the product's tables.
 */
export interface FloorResults {
  sent: number;
  ok: number;
  seconds: number;
  perSecond: number;
  claims: number;
  outcomeWrites: number;
  /** Fan-out inserts (0 in the `bare` shape, whose rows are written before the clock). */
  fanOuts?: number;
  /** Statements (claims, outcome writes and fan-out inserts, each its own transaction) per delivery. */
  statementsPerDelivery: number;
  /** perSecond over the baseline sender's. */
  ratio: number;
  cpu: PhaseCpu;
}

export async function floorPhase(
  sql: Sql,
  receiver: Receiver,
  env: Record<string, string>,
  options: { count: number; concurrency: number; baselinePerSecond: number; log: (line: string) => void; shape?: FloorShape },
): Promise<FloorResults> {
  const shape = options.shape ?? 'bare';
  try {
    const queued = await fillFloor(sql, shape, options.count);
    await receiver.reset();
    const { result, start, end, pid } = await runMeasured<Omit<FloorResults, 'statementsPerDelivery' | 'ratio' | 'cpu'>, CpuSnapshot>(
      'floor-queue',
      'webhooks/floor-queue.ts',
      [String(options.concurrency), shape, String(queued)],
      env,
      (floorPid) => cpuSnapshot(sql, { workers: [floorPid], receiver: receiver.proc.pid }),
      Math.max(120_000, queued * 10),
    );
    const left = await undelivered(sql, shape, queued);
    if (left > 0 || result.ok !== queued) throw new Error(`floor queue (${shape}): ${left} of ${queued} not recorded as delivered, ${result.ok} answered 2xx`);
    const cpu = phaseCpu(start, end, { workers: [pid], receiver: receiver.proc.pid }, result.sent);
    const floor: FloorResults = {
      ...result,
      statementsPerDelivery: (result.claims + result.outcomeWrites + (result.fanOuts ?? 0)) / Math.max(1, result.sent),
      ratio: result.perSecond / options.baselinePerSecond,
      cpu,
    };
    options.log(
      `postgres queue floor${shape === 'bare' ? '   ' : ` (${shape})`} ${floor.sent} deliveries in ${floor.seconds.toFixed(1)} s = ${floor.perSecond.toFixed(0)}/s; floor/baseline ${floor.ratio.toFixed(2)}, ` +
        `${floor.claims} claims, ${floor.outcomeWrites} outcome writes${shape === 'bare' ? '' : `, ${floor.fanOuts} fan-out inserts`}\n${describeCpu(cpu)}`,
    );
    return floor;
  } finally {
    await dropFloorTables(sql);
  }
}
