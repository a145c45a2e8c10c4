import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { startAutoanalyzeStandIn } from './autoanalyze.js';
import { openBenchDatabase } from './database.js';
import { parseOptions } from './options.js';
import { stopAllChildren } from './processes.js';
import { ensureSeeded } from './seed-data.js';
import { FLOOR_SHAPES, isFloorShape } from './webhooks/floor-shapes.js';
import { ladderTable, LADDER_RUNGS, runQueueLadder } from './webhooks/ladder.js';

/**
 * Where one webhook worker's gap below the PostgreSQL queue floor goes: the floor in each of its
 * shapes (scripts/bench/webhooks/floor-shapes.ts: `bare`, the floor `npm run bench` reports;
 * `writes`, plus what SPEC.md makes any design write, on narrow tables; `product`, the same on
 * copies of the product's delivery and attempt tables with every index, and `product-without-lists`
 * without the delivery lists' indexes; `split`, the data model the ladder points to, with the open
 * deliveries' state in a narrow table of their own; `end-written`, the leanest model that keeps the
 * delivery log's rows, written once when a delivery ends, and `end-written-limited`, the same with
 * SPEC.md's webhook limits kept in small rows) and the worker itself, each against the
 * baseline sender of its own round, over several rounds; medians printed as a table
 * (docs/performance.md). Uses the bench database as `npm run bench` leaves it (seeds it when
 * it is missing) and the bench's webhook workspaces; writes no results file.
 *
 *   node --import tsx scripts/bench/queue-ladder.ts [--rounds 3] [--events 20000] [--concurrency 64]
 *     [--shapes bare,writes,product-without-lists,product,split,end-written,end-written-limited] [--database offerdesk_bench] [--smoke]
 */
const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    events: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    concurrency: { type: 'string' },
    shapes: { type: 'string', default: FLOOR_SHAPES.join(',') },
    database: { type: 'string' },
  },
});
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new Error('--rounds must be an integer from 1 to 20');
const shapes = args.shapes.split(',');
const unknown = shapes.filter((s) => !isFloorShape(s));
if (unknown.length > 0) throw new Error(`unknown shape ${unknown.join(', ')} (${FLOOR_SHAPES.join(', ')})`);
// 20,000 events by default; --smoke takes the smoke run's sizes and database (CI checks that every shape runs).
const events = args.events ?? (args.smoke ? undefined : '20000');
const bench = parseOptions([
  ...(args.smoke ? ['--smoke'] : []),
  ...(events === undefined ? [] : ['--events', events]),
  ...(args.concurrency === undefined ? [] : ['--concurrency', args.concurrency]),
  ...(args.database === undefined ? [] : ['--database', args.database]),
]);

const log = (line: string): void => void process.stdout.write(`${line}\n`);
const workDir = mkdtempSync(join(tmpdir(), 'offerdesk-queue-ladder-'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopAllChildren().finally(() => process.exit(130)));
}
const db = await openBenchDatabase(loadConfig(), bench.database, { recreate: false, log });
const stopAutoanalyze = startAutoanalyzeStandIn(db.sql, db.setup.autovacuum, log);
try {
  await ensureSeeded(db.sql, bench.seed, log);
  log(`queue ladder: ${rounds} rounds of ${bench.webhooks.events} events, ${bench.webhooks.concurrency} slots, shapes ${shapes.join(', ')}`);
  const measures = await runQueueLadder(db, { ...bench.webhooks, workDir, log, rounds, shapes: shapes.filter(isFloorShape) });
  log('\nmedians over the rounds (each round against its own baseline sender):');
  for (const line of ladderTable(measures, LADDER_RUNGS)) log(line);
} finally {
  await stopAllChildren();
  await stopAutoanalyze();
  await db.close();
  rmSync(workDir, { recursive: true, force: true });
}
