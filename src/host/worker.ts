import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import { coerceError, type Logger } from '../log.js';
import type { EngineDeps } from '../webhooks/engine/deps.js';
import { createWebhookEngine } from '../webhooks/engine/engine.js';
import { JOBS_CHECK_INTERVAL_MS } from '../jobs/policy.js';
import { claimWhenFreeSlots, longestWaitForSlotMs, POLL_INTERVAL_MS } from '../webhooks/engine/policy.js';
import type { ClaimedDelivery } from '../webhooks/sql/claimDeliveries.js';
import { releaseClaim } from '../webhooks/sql/releaseClaim.js';
import { checkMasterKeys } from '../sealing/key-check.js';
import { holdWorkerLiveness } from '../webhooks/engine/liveness.js';
import { loadMasterKeys, type MasterKeys } from '../sealing/master-keys.js';
import { countMailOutcome, markWorkerRound } from '../telemetry/metrics.js';
import { createWebhookSender, RESPONSE_TIMEOUT_MS, type WebhookSender } from '../webhooks/transport/sender.js';
import { startMailLoop } from '../mail/loop.js';
import type { MailOutcome, MailTransport } from '../mail/transport.js';

/** Channel notified by a trigger whenever a product action commits outbox rows. */
export const OUTBOX_CHANNEL = 'offerdesk_webhook_outbox';

export interface WorkerOptions {
  sql: Sql;
  config: Config;
  clock: Clock;
  logger: Logger;
  /** Tests inject a sender (test CA, short timeouts); otherwise one is made from config. */
  sender?: WebhookSender;
  /**
   * Connection string for the worker's liveness session (see liveness.ts); without it the claims
   * of a killed worker are taken over only when their lease ends.
   */
  databaseUrl?: string;
  /** Keys already loaded and checked (serve does it once); otherwise loaded and checked here. */
  masterKeys?: MasterKeys;
  /** Tests inject an SMTP transport; otherwise config.mail decides (src/mail/loop.ts). */
  mailTransport?: MailTransport;
  /** Told the outcome of every mail send attempt; by default offerdesk_mail_sent_total counts it. */
  recordMailOutcome?: (outcome: MailOutcome) => void;
}

/** What /readyz (src/service/readiness.ts) needs to know about a worker running in the process. */
export interface WorkerProgress {
  /** Date.now() of the last claim round that finished without an error; undefined before the first. */
  lastRoundAt(): number | undefined;
  /** When the worker started, so a worker that never finishes a round goes stale too. */
  readonly startedAt: number;
}

export interface RunningWorker extends WorkerProgress {
  /** Stops claiming, lets in-flight attempts finish and record their outcome, then resolves. */
  stop(): Promise<void>;
}

/**
 * The master keys of this process, refused at start (ConfigError, one line) when they cannot open
 * the stored endpoint secrets: see checkMasterKeys.
 */
export async function loadCheckedMasterKeys(sql: Sql, config: Config, logger: Logger): Promise<MasterKeys> {
  const keys = loadMasterKeys(config, logger);
  await checkMasterKeys(sql, keys, logger);
  return keys;
}

/**
 * The background jobs of `offerdesk worker` and `offerdesk serve`: periodic jobs (expire offers,
 * log retention), fan-out of the outbox, and delivery attempts, up to `workerConcurrency` at once.
 * Any number of workers may run against one database (claims skip locked rows; leases recover
 * from a worker that dies mid-attempt).
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { sql, config, clock, logger } = options;
  const masterKeys = options.masterKeys ?? (await loadCheckedMasterKeys(sql, config, logger));
  const sender = options.sender ?? createWebhookSender({ config: config.webhooks, logger });
  const liveness = await holdWorkerLiveness({ sql, databaseUrl: options.databaseUrl, clock, logger });
  const deps: EngineDeps = {
    sql,
    clock,
    sender,
    masterKey: masterKeys.current,
    previousMasterKeys: masterKeys.previous,
    logger,
    settings: {
      startsPerMinutePerWorkspace: config.webhooks.startsPerMinutePerWorkspace,
      concurrency: config.webhooks.workerConcurrency,
      leaseMs: config.webhooks.leaseSeconds * 1000,
      devListen: config.webhooks.devListen,
    },
    workerId: () => liveness.workerId,
    publicUrl: config.publicUrl,
  };
  const engine = createWebhookEngine(deps);
  // Mail runs on its own loop and timer: a slow SMTP server never holds up a delivery round.
  const mailLoop = await startMailLoop({
    sql,
    clock,
    logger,
    mail: config.mail,
    publicUrl: config.publicUrl,
    transport: options.mailTransport,
    recordMailOutcome: options.recordMailOutcome ?? countMailOutcome,
  });
  // Every attempt until its outcome is stored; stop() waits for all of them.
  const unrecorded = new Set<Promise<unknown>>();
  // Attempts whose request is still out: a slot is taken only while its request is.
  let sending = 0;
  const startedAt = Date.now();
  // For /readyz: a loop that stops finishing rounds (a hung query, a lost database) goes stale.
  let lastRoundAt: number | undefined;
  let stopping = false;
  let wake: (() => void) | null = null;
  // A nudge that arrives while a step runs (an outbox commit, slots freed) is kept, so the loop
  // goes on at once instead of sleeping through it.
  let nudged = false;
  const nudge = () => {
    nudged = true;
    const w = wake;
    wake = null;
    w?.();
  };

  // Fan-out is asked for only when the outbox may hold due rows: after a commit's notification,
  // after a full batch, and at least every POLL_INTERVAL_MS (offer.expired rows become due later,
  // and a notification can be missed). A claim round under load then costs no empty fan-out
  // transaction.
  let outboxMayBeDue = true;
  let lastFanOutAt = Number.NEGATIVE_INFINITY;
  const outboxCommitted = () => {
    outboxMayBeDue = true;
    nudge();
  };

  let unlisten: (() => Promise<void>) | null = null;
  try {
    const listening = await sql.listen(OUTBOX_CHANNEL, outboxCommitted);
    unlisten = () => listening.unlisten();
  } catch (thrown) {
    logger.warn({ err: coerceError(thrown) }, 'cannot listen for outbox notifications; polling only');
  }

  // worker_jobs decides which worker runs a job; looking at it every few seconds is plenty.
  let nextJobsCheck = 0;
  const claimThreshold = claimWhenFreeSlots(deps.settings.concurrency);
  let lastClaimAt = Number.NEGATIVE_INFINITY;
  const concurrency = deps.settings.concurrency;
  const longestWaitMs = longestWaitForSlotMs(deps.settings.leaseMs, RESPONSE_TIMEOUT_MS);
  // An outcome waits for the group commit (completion.ts) without its slot; its delivery stays
  // 'sending' until then, so the per-endpoint share (policy.ts maxInFlightPerEndpoint) and its
  // lease still count it. At most `concurrency` outcomes wait beyond the slots, so a slow database
  // holds claims back instead of letting outcomes written late pile up toward their lease's end.
  const freeSlots = () => Math.min(concurrency - sending, 2 * concurrency - unrecorded.size);

  // Claimed deliveries waiting for a slot, oldest claim first. While deliveries are due beyond
  // what the slots hold (the last claim was full), the next batch is claimed while the current
  // one is being sent, so the claim statement's few milliseconds overlap sending instead of
  // leaving every slot idle until it returns. At most one batch waits; a delivery that
  // could not start within longestWaitForSlotMs is given back, so its lease always outlasts its
  // attempt.
  const ready: { claimed: ClaimedDelivery; customOfferDomains: string[]; claimedAt: number }[] = [];
  let lastClaimWasFull = false;

  function start(claimed: ClaimedDelivery, customOfferDomains: string[]): void {
    sending += 1;
    let slotTaken = true;
    const freeSlot = () => {
      if (slotTaken) sending -= 1;
      slotTaken = false;
      startReady();
      // Wake the loop for a claim once nothing claimed waits: for a batch's worth of free slots,
      // or at once while claims come back full (claiming ahead); single free slots otherwise wait
      // for the next poll.
      if (ready.length === 0 && (freeSlots() >= claimThreshold || lastClaimWasFull)) nudge();
    };
    const attempt = engine
      .attempt(claimed, customOfferDomains, freeSlot)
      .then((outcome) => logger.debug({ outcome }, 'webhook attempt done'))
      .catch((thrown) =>
        // The attempt's outcome could not be stored; the lease expires and another attempt follows.
        logger.error({ err: coerceError(thrown), deliveryId: claimed.id }, 'recording a webhook attempt failed'),
      )
      .finally(() => {
        unrecorded.delete(attempt);
        freeSlot();
      });
    unrecorded.add(attempt);
  }

  /** Starts waiting deliveries while slots are free; gives back those that waited too long. */
  function startReady(): void {
    while (ready.length > 0 && !stopping && freeSlots() > 0) {
      const next = ready.shift()!;
      if (Date.now() - next.claimedAt > longestWaitMs) giveBack([next.claimed]);
      else start(next.claimed, next.customOfferDomains);
    }
  }

  /** Claims not attempted go back to pending, due now, without counting an attempt. */
  function giveBack(claims: ClaimedDelivery[]): Promise<unknown> {
    const now = clock.now();
    return Promise.all(
      claims.map((claimed) =>
        releaseClaim(sql, { deliveryId: claimed.id, leaseToken: claimed.lease_token, nextAttemptAt: now, now }).catch((thrown) =>
          logger.warn({ err: coerceError(thrown), deliveryId: claimed.id }, 'could not give back a claim; its lease ends it'),
        ),
      ),
    );
  }

  /**
   * One round: at most one fan-out batch, then a claim when enough slots are free (see
   * claimWhenFreeSlots) or, while the claims come back full, as soon as no claimed delivery
   * waits. Returns true when more fan-out is due at once, or when a full claim's deliveries all
   * started at once, so the loop goes on without waiting; claims keep running between the
   * batches of a large outbox backlog.
   */
  async function step(): Promise<boolean> {
    if (Date.now() >= nextJobsCheck) {
      nextJobsCheck = Date.now() + JOBS_CHECK_INTERVAL_MS;
      await engine.runDueJobs();
    }
    const free = stopping || ready.length > 0 ? 0 : freeSlots();
    const ahead = !stopping && ready.length === 0 && lastClaimWasFull;
    const size = ahead ? concurrency : free;
    const claimNow = ahead || free >= claimThreshold || (free > 0 && Date.now() - lastClaimAt >= POLL_INTERVAL_MS);
    if (claimNow) {
      lastClaimAt = Date.now();
      // Claims carry this worker's liveness id; it must still be alive (see liveness.ts).
      await liveness.ensure();
    }
    const fanOut = outboxMayBeDue || Date.now() - lastFanOutAt >= POLL_INTERVAL_MS;
    if (fanOut) {
      outboxMayBeDue = false;
      lastFanOutAt = Date.now();
    }
    const round = await engine.step(claimNow ? size : 0, fanOut);
    // Another worker held the fan-out lock: ask again next round.
    if (round.moreToFanOut || round.fanOut.busy) outboxMayBeDue = true;
    const { deliveries, customOfferDomains } = round.claimed;
    if (claimNow) lastClaimWasFull = deliveries.length === size;
    const claimedAt = Date.now();
    for (const claimed of deliveries) ready.push({ claimed, customOfferDomains, claimedAt });
    startReady();
    // A full claim whose deliveries all started at once: claim the next batch ahead right away.
    return round.moreToFanOut || (claimNow && lastClaimWasFull && ready.length === 0);
  }

  const loop = (async () => {
    logger.info({ concurrency: deps.settings.concurrency }, 'webhook worker started');
    while (!stopping) {
      let moreToFanOut = false;
      nudged = false;
      try {
        moreToFanOut = await step();
        lastRoundAt = Date.now();
        markWorkerRound(lastRoundAt);
      } catch (thrown) {
        logger.error({ err: coerceError(thrown) }, 'webhook worker step failed');
      }
      if (stopping) break;
      if (moreToFanOut || nudged) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_INTERVAL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    // Claimed deliveries not yet started go back at once; in-flight attempts finish and their
    // outcomes are stored before the remaining claims are handed back.
    await giveBack(ready.splice(0).map((waiting) => waiting.claimed));
    await Promise.allSettled([...unrecorded]);
    await mailLoop.stop();
    const handedBack = await liveness.release();
    if (handedBack > 0) logger.info({ handedBack }, 'handed back claims this worker did not finish');
    if (unlisten) await unlisten().catch(() => {});
    if (!options.sender) await sender.close();
    logger.info('webhook worker stopped');
  })();

  return {
    startedAt,
    lastRoundAt: () => lastRoundAt,
    async stop() {
      stopping = true;
      nudge();
      await loop;
    },
  };
}
