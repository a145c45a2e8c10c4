import { systemClock, DAY, ManualClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { createSession } from '../../../src/domain/sessions.js';
import { deliveryLogRetentionJob } from '../../../src/jobs/jobs.js';
import { createLogger } from '../../../src/log.js';
import { startAutoanalyzeStandIn } from '../autoanalyze.js';
import { openBenchDatabase } from '../database.js';
import { percentile } from '../numbers.js';
import { benchEnv, startServer } from '../processes.js';
import { commitAll, measure, spread, type Bench, type RunStats } from '../webhooks/harness.js';
import { ensureScaleWorkspaces } from '../webhooks/scale.js';
import { ensureWebhookWorkspaces } from '../webhooks/setup.js';
import { ensureLogSeeded, type SeededLog } from './seed.js';

/**
 * The delivery log at scale (`--log-rows n`; docs/delivery-log.md): n finished deliveries with
 * their attempts spread over 30 days (SPEC.md "Webhook limits": 30 days of log), in a database of
 * its own, seeded once (seed.ts) and reused. Three measures:
 *   pages      every filter of the console's log over HTTP (`offerdesk serve`, a session cookie),
 *              PAGE_READS pages of 50 each, walking its cursor: p95 under 50 ms
 *   worker     the throughput run's events with that log beside them, against the throughput run
 *              of the main database, whose log is empty: within 10 %
 *   retention  the product's retention job, its clock set so that the oldest day has just passed
 *              30 days: under 1 s (the next run seeds that day again)
 */
export type LogResults = Awaited<ReturnType<typeof deliveryLogPhase>>;

const PAGE = 50;
const PAGE_READS = 200;

export async function deliveryLogPhase(main: Bench, emptyLog: RunStats) {
  const { logRows, workspaces, events, endpointsPerWorkspace } = main.options;
  const db = await openBenchDatabase(loadConfig(), `offerdesk_bench_log_${logRows}`, { recreate: false, log: main.log });
  const stopAnalyze = startAutoanalyzeStandIn(db.sql, db.setup.autovacuum, () => {});
  try {
    const setup = await ensureWebhookWorkspaces(db.sql, workspaces, main.log);
    const masterKey = await ensureScaleWorkspaces(db.sql, { fresh: setup.workspaces.map((w) => w.id), endpoints: endpointsPerWorkspace, idle: 0, busy: 0 }, main.log);
    const seeded = await ensureLogSeeded(db.sql, logRows, Buffer.from(masterKey, 'base64'), main.log);
    const env = { ...main.env, DATABASE_URL: db.url, OFFERDESK_MASTER_KEY: masterKey };
    const pages = await timeFilters(db.sql, env, seeded, main);
    const b: Bench = { ...main, sql: db.sql, env, setup, workspaces: setup.workspaces };
    const withLog = await measure(b, 'throughput beside the log', 1, commitAll(b, spread(b, events)));
    const retention = await timeRetention(db.sql, seeded);
    main.log(`retention of the log's oldest day: ${retention.ms.toFixed(0)} ms (${retention.rows} deliveries)`);
    return { rows: seeded.rows, days: seeded.days, pages, worstP95Ms: Math.max(...pages.map((p) => p.p95Ms)), withLog, ratio: withLog.perSecond / emptyLog.perSecond, retention };
  } finally {
    await stopAnalyze();
    await db.close();
  }
}

/** Each filter of the console's delivery log, PAGE_READS pages of PAGE rows over HTTP, walking its cursor. */
async function timeFilters(sql: Sql, env: Record<string, string>, seeded: SeededLog, main: Bench) {
  const service = await startServer('service-log', 'bin/offerdesk.js', {
    built: true,
    args: ['serve', '--no-worker'],
    env: { ...benchEnv(env.DATABASE_URL!), OFFERDESK_MASTER_KEY: env.OFFERDESK_MASTER_KEY!, OFFERDESK_DEMO_SEED: 'false', HOST: '127.0.0.1' },
    workDir: main.options.workDir,
  });
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
      times.sort((x, y) => x - y);
      results.push({ name, p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), maxMs: times.at(-1)! });
      main.log(`delivery log ${name.padEnd(28)} p50 ${results.at(-1)!.p50Ms.toFixed(1)} ms, p95 ${results.at(-1)!.p95Ms.toFixed(1)} ms`);
    }
    return results;
  } finally {
    await service.proc.stop();
  }
}

/** The retention job as the worker runs it, on a clock just past the oldest day's 30 days. */
async function timeRetention(sql: Sql, seeded: SeededLog) {
  const [day] = await sql<{ n: number }[]>`
    select count(*)::int as n from webhook_delivery_log where finished_at >= ${seeded.firstDay} and finished_at < ${new Date(seeded.firstDay.getTime() + DAY)}`;
  const clock = new ManualClock(new Date(seeded.firstDay.getTime() + 31 * DAY));
  const started = performance.now();
  await deliveryLogRetentionJob.run({ sql, clock, logger: createLogger('warn') });
  return { ms: performance.now() - started, rows: day!.n };
}
