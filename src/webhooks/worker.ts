import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import { coerceError, type Logger } from '../log.js';
import type { EngineDeps } from './deps.js';
import { attemptDelivery, claimBatch } from './dispatch.js';
import { createWebhookEngine } from './engine.js';
import { JOBS_CHECK_INTERVAL_MS, POLL_INTERVAL_MS } from './policy.js';
import { loadMasterKey } from './secrets.js';
import { createWebhookSender, type WebhookSender } from './sender.js';

/** Channel notified by a trigger whenever a product action commits outbox rows. */
export const OUTBOX_CHANNEL = 'offerdesk_webhook_outbox';

export interface WorkerOptions {
  sql: Sql;
  config: Config;
  clock: Clock;
  logger: Logger;
  /** Tests inject a sender (test CA, short timeouts); otherwise one is made from config. */
  sender?: WebhookSender;
}

export interface RunningWorker {
  /** Stops claiming, lets in-flight attempts finish and record their outcome, then resolves. */
  stop(): Promise<void>;
}

/**
 * The background jobs of `offerdesk worker` and `offerdesk serve`: periodic jobs (expire offers,
 * log retention), fan-out of the outbox, and delivery attempts, up to `workerConcurrency` at once.
 * Any number of workers may run against one database (claims skip locked rows; leases recover
 * from a worker that dies mid-attempt).
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { sql, config, clock, logger } = options;
  const sender = options.sender ?? createWebhookSender({ config: config.webhooks, logger });
  const deps: EngineDeps = {
    sql,
    clock,
    sender,
    masterKey: loadMasterKey(config, logger),
    logger,
    settings: {
      startsPerMinutePerWorkspace: config.webhooks.startsPerMinutePerWorkspace,
      concurrency: config.webhooks.workerConcurrency,
      leaseMs: config.webhooks.leaseSeconds * 1000,
    },
  };
  const engine = createWebhookEngine(deps);
  const inFlight = new Set<Promise<unknown>>();
  let stopping = false;
  let wake: (() => void) | null = null;
  const nudge = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  let unlisten: (() => Promise<void>) | null = null;
  try {
    const listening = await sql.listen(OUTBOX_CHANNEL, nudge);
    unlisten = () => listening.unlisten();
  } catch (thrown) {
    logger.warn({ err: coerceError(thrown) }, 'cannot listen for outbox notifications; polling only');
  }

  // worker_jobs decides which worker runs a job; looking at it every few seconds is plenty.
  let nextJobsCheck = 0;
  async function step(): Promise<void> {
    if (Date.now() >= nextJobsCheck) {
      nextJobsCheck = Date.now() + JOBS_CHECK_INTERVAL_MS;
      await engine.runDueJobs();
    }
    await engine.fanOut();
    const slots = deps.settings.concurrency - inFlight.size;
    if (slots <= 0 || stopping) return;
    const batch = await claimBatch(deps, slots);
    for (const claimed of batch.deliveries) {
      const attempt = attemptDelivery(deps, claimed, batch.customOfferDomains)
        .then((outcome) => logger.debug({ outcome }, 'webhook attempt done'))
        .catch((thrown) =>
          // The attempt's outcome could not be stored; the lease expires and another attempt follows.
          logger.error({ err: coerceError(thrown), deliveryId: claimed.id }, 'recording a webhook attempt failed'),
        )
        .finally(() => {
          inFlight.delete(attempt);
          nudge();
        });
      inFlight.add(attempt);
    }
  }

  const loop = (async () => {
    logger.info({ concurrency: deps.settings.concurrency }, 'webhook worker started');
    while (!stopping) {
      try {
        await step();
      } catch (thrown) {
        logger.error({ err: coerceError(thrown) }, 'webhook worker step failed');
      }
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_INTERVAL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await Promise.allSettled([...inFlight]);
    if (unlisten) await unlisten().catch(() => {});
    if (!options.sender) await sender.close();
    logger.info('webhook worker stopped');
  })();

  return {
    async stop() {
      stopping = true;
      nudge();
      await loop;
    },
  };
}
