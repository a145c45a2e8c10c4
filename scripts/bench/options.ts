import { parseArgs } from 'node:util';
import { DEFAULT_WEBHOOK_WORKER_CONCURRENCY } from '../../src/config.js';

/** Sizes of `npm run bench` (docs/performance.md) and `npm run bench:smoke` (tiny: sane numbers, never how fast). */
export type BenchOptions = ReturnType<typeof parseOptions>;

const USAGE = `usage: npm run bench [-- options]
  --smoke               tiny sizes, 1 s per scenario (what CI runs as npm run bench:smoke)
  --reseed              drop the bench database and seed it again
  --only read|webhooks  run one part
  --workspaces <n>      webhooks: also n workspaces with waiting deliveries beside --idle-workspaces <m> idle
                        ones with endpoints (own database, seeded once), against 200 workspaces (20000, 50000)
  --log-rows <n>        webhooks: also the console's delivery log, retention and the worker with n finished
                        deliveries over 30 days (own database, seeded once; 20000000)
  --duration <s>        seconds per read scenario and side (default 10)
  --connections <n>     concurrent connections of the load generator (default 32)
  --events <n>          webhook events of the throughput run (default 100000)
  --concurrency <n>     attempts in flight per webhook worker and in the baseline sender (default: the worker's default)
  --profile             run the API services with --cpu-prof (bench/profiles/<name>.cpuprofile)
  --help`;

/** Bad options: one line of reason and the usage on stderr, exit 2. */
function fail(reason: string): never {
  process.stderr.write(`bench: ${reason}\n${USAGE}\n`);
  process.exit(2);
}

export function parseOptions(argv: string[]) {
  const flag = { type: 'boolean', default: false } as const;
  const text = { type: 'string' } as const;
  let values;
  try {
    const options = { smoke: flag, reseed: flag, profile: flag, help: flag, only: { type: 'string', default: 'all' }, duration: text, connections: text, events: text, concurrency: text, workspaces: text, 'idle-workspaces': text, 'log-rows': text } as const;
    ({ values } = parseArgs({ args: argv, options, strict: true }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const only = values.only as 'all' | 'read' | 'webhooks';
  if (!['all', 'read', 'webhooks'].includes(only)) fail('--only must be read or webhooks');
  const number = (raw: string | undefined, name: string, fallback = 0) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    return Number.isFinite(value) && value > 0 ? value : fail(`--${name} must be a positive number`);
  };
  const smoke = values.smoke;
  if (values['idle-workspaces'] !== undefined && values.workspaces === undefined) fail('--idle-workspaces needs --workspaces');
  return {
    smoke,
    reseed: values.reseed,
    only,
    profile: values.profile,
    /** Full and smoke runs keep their data apart. */
    database: smoke ? 'offerdesk_bench_smoke' : 'offerdesk_bench',
    seed: smoke
      ? { offers: 2_000, otherWorkspaces: 2, offersPerOtherWorkspace: 200, randomSeed: 1 }
      : { offers: 1_000_000, otherWorkspaces: 3, offersPerOtherWorkspace: 10_000, randomSeed: 1 },
    read: {
      durationSeconds: number(values.duration, 'duration', smoke ? 1 : 10),
      warmupSeconds: smoke ? 0 : 2,
      connections: number(values.connections, 'connections', smoke ? 8 : 32),
      deepPage: smoke ? 40 : 10_000,
      pageSize: 25,
      rotatingIds: smoke ? 200 : 2_000,
      keysPerConnection: smoke ? 50 : 1_000,
      tracingRounds: smoke ? 1 : 5, // of each of the tracing measure's two pairs of services (tracing-sink.ts)
    },
    webhooks: {
      events: number(values.events, 'events', smoke ? 500 : 100_000),
      workspaces: smoke ? 10 : 200,
      endpointsPerWorkspace: 2,
      /** Attempts in flight per worker (WEBHOOK_WORKER_CONCURRENCY) and in the baseline sender. */
      concurrency: number(values.concurrency, 'concurrency', DEFAULT_WEBHOOK_WORKER_CONCURRENCY),
      /** Events per second of the paced latency phase (below capacity: nothing waits). */
      latencyRate: smoke ? 20 : 50,
      latencyEvents: smoke ? 40 : 1_000,
      fairnessBigEvents: smoke ? 500 : 50_000,
      fairnessSmallWorkspaces: smoke ? 9 : 199,
      fairnessSmallEvents: 10,
      /** Open deliveries queued before each backlog row; the first attempts each row times. */
      backlogSizes: smoke ? [200, 2_000] : [2_000, 20_000, 200_000],
      backlogMeasured: smoke ? 200 : 2_000,
      /** Workspaces with waiting deliveries and idle ones beside them; 0: no such run. */
      scale: { busy: number(values.workspaces, 'workspaces'), idle: number(values['idle-workspaces'], 'idle-workspaces') },
      logRows: number(values['log-rows'], 'log-rows'),
    },
    // The smoke run's file is ignored by git; only a full run replaces bench/results.json.
    resultsFile: smoke ? 'bench/results.tmp.json' : 'bench/results.json',
  };
}
