import { DAY, type Clock } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { expireDueOffers } from '../domain/expiry.js';
import { deleteExpiredSessions } from '../domain/sessions.js';
import { coerceError, type Logger } from '../log.js';
import { tracedDeps, withSpan } from '../telemetry/tracing.js';
import {
  DELIVERY_LOG_RETENTION_MS,
  EXPIRY_JOB_INTERVAL_MS,
  LOG_PARTITION_DAYS_AHEAD,
  LOG_PARTITIONS_JOB_INTERVAL_MS,
  RETENTION_BATCH_SIZE,
  RETENTION_JOB_INTERVAL_MS,
} from './policy.js';
import { claimJobRun } from './sql/claimJobRun.js';
import { deleteExpiredLog, deleteUnusedMessages, type MessageCursor, type MessageRowsTable } from './sql/deleteExpiredLog.js';
import { dropExpiredPartitions } from './sql/dropExpiredPartitions.js';
import { dropUnusedMessageDays } from './sql/dropUnusedMessageDays.js';
import { ensureLogPartitions } from './sql/ensureLogPartitions.js';
import { ensureMessagePartitions } from './sql/ensureMessagePartitions.js';

/**
 * The periodic jobs: offer expiry, the delivery log's retention and ended console sessions (and
 * the webhook engine's own, src/webhooks/engine/webhook-jobs.ts). The worker (`offerdesk worker`, or inside `serve`) asks every JOBS_CHECK_INTERVAL_MS which are due;
 * each period's run is claimed by one worker of the fleet (worker_jobs, sql/claimJobRun.ts).
 */
export interface JobDeps {
  sql: Sql;
  clock: Clock;
  logger: Logger;
}

export interface PeriodicJob {
  name: string;
  intervalMs: number;
  run(deps: JobDeps): Promise<number>;
  /**
   * Which runs are logged at info: 'always', or 'when-busy' for a frequent job (a run that found
   * nothing, or a routine one, goes to debug; a job of every 15 s or minute would drown the log).
   */
  log?: 'always' | 'when-busy' | 'never';
}

/**
 * openapi.yaml "Webhook events": "offer.expired is detected every 15 minutes and dispatched about two
 * minutes later". The domain's expiry writes each outbox row with available_at two minutes ahead;
 * it picks offers with `for update skip locked`, so even two runs at once expire each offer once.
 */
export const expireOffersJob: PeriodicJob = {
  name: 'expire-offers',
  intervalMs: EXPIRY_JOB_INTERVAL_MS,
  run: ({ sql, clock }) => expireDueOffers(sql, clock),
};

/**
 * The delivery log's and the attempts' daily partitions (migration 0020), and the messages' (0032), for the next
 * LOG_PARTITION_DAYS_AHEAD days, by the clock. Not today's: a day is made before it begins, and a
 * day already under way without one (the jobs stood still) keeps its rows in the default
 * partition, where they are read and retained like any others, rather than moving them while
 * they are written.
 */
export const logPartitionsJob: PeriodicJob = {
  name: 'webhook-log-partitions',
  intervalMs: LOG_PARTITIONS_JOB_INTERVAL_MS,
  async run({ sql, clock }) {
    const now = clock.now().getTime();
    const days = { firstDay: new Date(now + DAY), lastDay: new Date(now + LOG_PARTITION_DAYS_AHEAD * DAY) };
    return (await ensureLogPartitions(sql, days)) + (await ensureMessagePartitions(sql, days));
  },
  log: 'when-busy',
};

/**
 * docs/delivery-log.md "Retention": delivery log retention 30 days (what that means exactly:
 * docs/delivery-log.md "Retention"). Whole days go at once: a day's partition is dropped once the
 * day ended 30 days ago, and a day of messages once it ended 30 days ago and no delivery still
 * kept or open refers to it. Rows of the default partitions (and the messages' legacy one) go one
 * by one at 30 days, messages once no delivery refers to them. Returns the partitions and log
 * rows removed.
 */
export const deliveryLogRetentionJob: PeriodicJob = {
  name: 'webhook-log-retention',
  intervalMs: RETENTION_JOB_INTERVAL_MS,
  async run({ sql, clock }) {
    const before = new Date(clock.now().getTime() - DELIVERY_LOG_RETENTION_MS);
    let total = await dropExpiredPartitions(sql, { before });
    for (;;) {
      const deleted = await deleteExpiredLog(sql, { before, limit: RETENTION_BATCH_SIZE });
      total += deleted;
      if (deleted < RETENTION_BATCH_SIZE) break;
    }
    total += await dropUnusedMessageDays(sql, { before });
    for (const from of await messageRowsTables(sql)) {
      for (let after: MessageCursor | null = null; ; ) {
        const batch = await deleteUnusedMessages(sql, { before, after, limit: RETENTION_BATCH_SIZE, from });
        if (batch.examined < RETENTION_BATCH_SIZE) break;
        after = batch.last;
      }
    }
    return total;
  },
};

/** The message partitions retention empties row by row, those that exist (migration 0032). */
async function messageRowsTables(sql: Sql): Promise<Exclude<MessageRowsTable, 'webhook_messages'>[]> {
  const rows = await sql<{ name: Exclude<MessageRowsTable, 'webhook_messages'> }[]>`
    select t.name from unnest(array['webhook_messages_default', 'webhook_messages_legacy']) as t(name)
     where to_regclass(t.name) is not null`;
  return rows.map((row) => row.name);
}

/** Ended console sessions and sign-in links are useless; they are deleted with the log's period. */
export const consoleSessionRetentionJob: PeriodicJob = {
  name: 'console-session-retention',
  intervalMs: RETENTION_JOB_INTERVAL_MS,
  run: ({ sql, clock }) => deleteExpiredSessions(sql, clock),
};

export const PERIODIC_JOBS: readonly PeriodicJob[] = [expireOffersJob, logPartitionsJob, deliveryLogRetentionJob, consoleSessionRetentionJob];

/**
 * Runs each job whose period has come, at most once per period across all workers (worker_jobs).
 * A failing job is logged and tried again next period; it never stops the worker. With tracing on,
 * each run is a trace of its own, so the outbox rows a job writes (offer.expired) have a
 * traceparent that their fan-out and attempts link to.
 */
export async function runDueJobs(deps: JobDeps, jobs: readonly PeriodicJob[] = PERIODIC_JOBS): Promise<string[]> {
  const ran: string[] = [];
  for (const job of jobs) {
    const now = deps.clock.now();
    if (!(await claimJobRun(deps.sql, { name: job.name, now, intervalMs: job.intervalMs }))) continue;
    try {
      await withSpan(`job ${job.name}`, { attributes: { 'offerdesk.job': job.name } }, async (span) => {
        const traced = tracedDeps(deps, span);
        const count = await job.run(traced);
        span?.setAttribute('offerdesk.job.count', count);
        const quiet = job.log === 'never' || (job.log === 'when-busy' && count === 0);
        traced.logger[quiet ? 'debug' : 'info']({ job: job.name, count }, `job ${job.name} done`);
      });
      ran.push(job.name);
    } catch (thrown) {
      deps.logger.error({ err: coerceError(thrown), job: job.name }, `job ${job.name} failed`);
    }
  }
  return ran;
}
