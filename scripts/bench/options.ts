import { parseArgs } from 'node:util';
import { DEFAULT_WEBHOOK_WORKER_CONCURRENCY } from '../../src/config.js';

/**
 * Sizes of `npm run bench` (docs/performance.md) and `npm run bench:smoke` (tiny, for CI: it checks that
 * everything runs end to end and produces sane numbers, never how fast).
 */
export interface BenchOptions {
  smoke: boolean;
  reseed: boolean;
  only: 'all' | 'read' | 'webhooks';
  profile: boolean;
  /** Bench database name on the server: full and smoke runs keep their data apart. */
  database: string;
  seed: { offers: number; otherWorkspaces: number; offersPerOtherWorkspace: number; randomSeed: number };
  read: {
    durationSeconds: number;
    warmupSeconds: number;
    connections: number;
    deepPage: number;
    pageSize: number;
    rotatingIds: number;
    keysPerConnection: number;
  };
  webhooks: {
    events: number;
    workspaces: number;
    endpointsPerWorkspace: number;
    /** Concurrency of the worker (WEBHOOK_WORKER_CONCURRENCY) and of the baseline's sending loop. */
    concurrency: number;
    /** Events per second of the paced latency phase (below capacity: nothing waits). */
    latencyRate: number;
    latencyEvents: number;
    fairnessBigEvents: number;
    fairnessSmallWorkspaces: number;
    fairnessSmallEvents: number;
    /** Open deliveries queued before each row of the backlog run (throughput against backlog size). */
    backlogSizes: number[];
    /** First attempts timed in each backlog row. */
    backlogMeasured: number;
  };
  resultsFile: string;
}

const USAGE = `usage: npm run bench [-- options]
  --smoke               tiny sizes, 1 s per scenario (what CI runs as npm run bench:smoke)
  --reseed              drop the bench database and seed it again
  --only read|webhooks  run one part
  --duration <s>        seconds per read scenario and side (default 10)
  --connections <n>     concurrent connections of the load generator (default 32)
  --events <n>          webhook events of the throughput run (default 100000)
  --concurrency <n>     attempts in flight per webhook worker and in the baseline sender (default: the worker's default)
  --profile             run the API service with --cpu-prof (profiles under bench/profiles/)
  --database <name>     bench database on the server (default offerdesk_bench, offerdesk_bench_smoke)
  --help`;

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      smoke: { type: 'boolean', default: false },
      reseed: { type: 'boolean', default: false },
      only: { type: 'string', default: 'all' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      events: { type: 'string' },
      concurrency: { type: 'string' },
      profile: { type: 'boolean', default: false },
      database: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const only = values.only as BenchOptions['only'];
  if (!['all', 'read', 'webhooks'].includes(only)) throw new Error(`--only must be read or webhooks\n${USAGE}`);
  const number = (raw: string | undefined, name: string, fallback: number) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number\n${USAGE}`);
    return value;
  };

  const smoke = values.smoke;
  // Interpolated into CREATE/DROP DATABASE: a plain identifier only.
  if (values.database !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(values.database)) {
    throw new Error(`--database must be a lower-case identifier\n${USAGE}`);
  }
  return {
    smoke,
    reseed: values.reseed,
    only,
    profile: values.profile,
    database: values.database ?? (smoke ? 'offerdesk_bench_smoke' : 'offerdesk_bench'),
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
    },
    webhooks: {
      events: number(values.events, 'events', smoke ? 500 : 100_000),
      workspaces: smoke ? 10 : 200,
      endpointsPerWorkspace: 2,
      concurrency: number(values.concurrency, 'concurrency', DEFAULT_WEBHOOK_WORKER_CONCURRENCY),
      latencyRate: smoke ? 20 : 50,
      latencyEvents: smoke ? 40 : 1_000,
      fairnessBigEvents: smoke ? 500 : 50_000,
      fairnessSmallWorkspaces: smoke ? 9 : 199,
      fairnessSmallEvents: 10,
      backlogSizes: smoke ? [200, 2_000] : [2_000, 20_000, 200_000],
      backlogMeasured: smoke ? 200 : 2_000,
    },
    // The smoke run's file is ignored by git; only a full run replaces bench/results.json.
    resultsFile: smoke ? 'bench/results.tmp.json' : 'bench/results.json',
  };
}
