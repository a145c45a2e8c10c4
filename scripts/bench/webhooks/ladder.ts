import type { BenchDatabase } from '../database.js';
import type { PhaseCpu } from './cpu.js';
import { floorPhase } from './floor.js';
import { percentile } from './harness.js';
import { FLOOR_SHAPES, type FloorShape } from './floor-shapes.js';
import { addBenchEndpoints, baselinePhase, measure, spread, startWebhookBench, type WebhookOptions } from './run.js';
import { clearDeliveries } from './setup.js';

/**
 * The queue ladder (scripts/bench/queue-ladder.ts): in each round one worker delivers the
 * throughput run's events, the baseline sender sends the same bodies without a database, and the
 * queue floor sends them again in each of its shapes (floor-shapes.ts), the shapes' order turning
 * from round to round so that drift on a shared machine does not always favour one. Every rung is
 * set against the baseline of its own round.
 */
export type Rung = 'worker' | FloorShape;
export const LADDER_RUNGS: readonly Rung[] = [...FLOOR_SHAPES, 'worker'];

export interface LadderMeasure {
  round: number;
  rung: Rung;
  perSecond: number;
  /** Over the same round's baseline sender. */
  ratio: number;
  cpu: PhaseCpu;
}

export async function runQueueLadder(
  db: BenchDatabase,
  options: WebhookOptions & { rounds: number; shapes: readonly FloorShape[] },
): Promise<LadderMeasure[]> {
  const bench = await startWebhookBench(db, options);
  const measures: LadderMeasure[] = [];
  try {
    await addBenchEndpoints(bench);
    for (let round = 1; round <= options.rounds; round++) {
      options.log(`\nround ${round} of ${options.rounds}`);
      const worker = await measure(bench, 'throughput (1 worker)', spread(bench, options.events), 1);
      const { baseline, ratio } = await baselinePhase(bench, worker);
      measures.push({ round, rung: 'worker', perSecond: worker.perSecond, ratio, cpu: worker.cpu! });
      const turn = (round - 1) % options.shapes.length;
      for (const shape of [...options.shapes.slice(turn), ...options.shapes.slice(0, turn)]) {
        const floor = await floorPhase(bench.sql, bench.receiver, bench.env, {
          count: baseline.sent,
          concurrency: options.concurrency,
          baselinePerSecond: baseline.perSecond,
          log: options.log,
          shape,
        });
        measures.push({ round, rung: shape, perSecond: floor.perSecond, ratio: floor.ratio, cpu: floor.cpu });
      }
    }
    await clearDeliveries(bench.sql);
    return measures;
  } finally {
    await bench.receiver.proc.stop();
  }
}

/** The middle round (the lower of the two middle ones for an even number of rounds). */
const median = (values: number[]): number => percentile(values, 50);

/** One line per rung: medians over the rounds of the rate, the ratio and CPU per delivery. */
export function ladderTable(measures: LadderMeasure[], rungs: readonly Rung[]): string[] {
  const lines = [
    '| rung | deliveries/s | over the baseline sender | per delivery, µs: process | PostgreSQL (its backends) | receiver | machine | busy |',
    '| - | - | - | - | - | - | - | - |',
  ];
  for (const rung of rungs) {
    const of = measures.filter((m) => m.rung === rung);
    if (of.length === 0) continue;
    const us = (pick: (cpu: PhaseCpu) => number) => median(of.map((m) => pick(m.cpu))).toFixed(0);
    lines.push(
      `| ${rung} | ${median(of.map((m) => m.perSecond)).toFixed(0)} | ${median(of.map((m) => m.ratio)).toFixed(2)}x ` +
        `(${of.map((m) => m.ratio.toFixed(2)).join(', ')}) | ${us((c) => c.perDeliveryUs.workers)} | ` +
        `${us((c) => c.perDeliveryUs.postgres)} (${us((c) => c.perDeliveryUs.postgresForWorkers)}) | ${us((c) => c.perDeliveryUs.receiver)} | ` +
        `${us((c) => c.perDeliveryUs.machine)} | ${(median(of.map((m) => m.cpu.machineBusyShare)) * 100).toFixed(0)}% |`,
    );
  }
  return lines;
}
