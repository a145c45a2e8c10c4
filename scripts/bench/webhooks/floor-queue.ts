import { loadConfig } from '../../../src/config.js';
import { connect } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { claimWhenFreeSlots, POLL_INTERVAL_MS } from '../../../src/webhooks/engine/policy.js';
import { openSecret } from '../../../src/sealing/secrets.js';
import { loadMasterKeys } from '../../../src/sealing/master-keys.js';
import { createWebhookSender } from '../../../src/webhooks/transport/sender.js';
import { finish, readyThenGo } from './measured-process.js';
import { claimFloor, fanOut, FANOUT_ROWS, isFloorShape, recordFloor, type ClaimedRow, type FloorShape, type Outcome } from './floor-shapes.js';

/**
 * The PostgreSQL queue floor (docs/performance.md): the throughput run's deliveries sent by the
 * project's sender at the worker's concurrency, taken from and recorded in PostgreSQL in one of
 * the floor's shapes (floor-shapes.ts; `bare` is the one `npm run bench` reports), with none of
 * SPEC.md's webhook limits (no fairness, start rate, per-endpoint share, lease expiry or retry
 * schedule). It batches as the worker does: it claims when all its slots are free (or at the
 * worker's poll with some free), a slot is free once its request has ended, outcomes are
 * group-committed (what finishes during a write goes in the next), and at most one concurrency's
 * worth of outcomes wait beyond the slots. In the shapes that insert their deliveries inside the
 * clock, one fan-out loop inserts them a batch at a time beside the claims.
 *
 * Endpoint secrets are opened once per endpoint before the clock starts, as the baseline sender
 * does. Arguments: <concurrency> <shape> <deliveries>. Environment as for the worker. Started by
 * runMeasured; its result is {"sent","ok","seconds","perSecond","claims","outcomeWrites","fanOuts"},
 * the clock running from the go to the last outcome committed.
 */
const concurrency = Number(process.argv[2]);
const shape = process.argv[3] ?? '';
const total = Number(process.argv[4]);
if (!isFloorShape(shape)) throw new Error(`floor-queue: unknown shape ${shape}`);
const config = loadConfig();
if (!config.databaseUrl) throw new Error('floor-queue needs DATABASE_URL');
const logger = createLogger('warn', 'offerdesk-bench-floor');
const masterKeys = loadMasterKeys(config, logger);
const sql = connect(config.databaseUrl, { max: config.databasePoolSize, applicationName: 'offerdesk-bench-floor' });

const endpoints = await sql<{ id: string; secret_sealed: Buffer }[]>`
  select e.id, e.secret_sealed from webhook_endpoints e where e.removed_at is null and e.url not like '%/fail/%'`;
const secrets = new Map(endpoints.map((e) => [e.id, openSecret(masterKeys, e.id, e.secret_sealed)]));
const sender = createWebhookSender({ config: config.webhooks, logger });

const claimThreshold = claimWhenFreeSlots(concurrency);
let sending = 0;
let unrecorded = 0;
let claimed = 0;
let recorded = 0;
let ok = 0;
let claims = 0;
let outcomeWrites = 0;
let fanOuts = 0;
let waiting: Outcome[] = [];
let writing = false;
let wake: (() => void) | null = null;
let nudged = false;
const nudge = () => {
  nudged = true;
  const w = wake;
  wake = null;
  w?.();
};
const freeSlots = () => Math.min(concurrency - sending, 2 * concurrency - unrecorded);

/** Group commit: outcomes that arrive during a write go together in the next. */
async function writeOutcomes(): Promise<void> {
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    outcomeWrites += await recordFloor(sql, shape as FloorShape, batch);
    unrecorded -= batch.length;
    recorded += batch.length;
    if (freeSlots() >= claimThreshold || recorded === total) nudge();
  }
  writing = false;
}

function record(outcome: Outcome): void {
  waiting.push(outcome);
  if (writing) return;
  writing = true;
  setImmediate(() => void writeOutcomes());
}

async function attempt(row: ClaimedRow): Promise<void> {
  const attemptedAt = new Date();
  const outcome = await sender.send({
    url: row.url,
    secret: secrets.get(row.endpoint_id)!,
    messageId: row.message_id,
    body: row.body,
    attemptAt: attemptedAt,
    customOfferDomains: [],
  });
  sending--;
  if (outcome.ok) ok++;
  record({ row, ok: outcome.ok, statusCode: outcome.status, attemptedAt, durationMs: outcome.durationMs });
  if (freeSlots() >= claimThreshold) nudge();
}

/** The fan-out of the shapes that insert their deliveries inside the clock. */
async function fanOutAll(): Promise<void> {
  for (let first = 1; first <= total; first += FANOUT_ROWS) {
    fanOuts++;
    await fanOut(sql, shape as FloorShape, first, Math.min(total, first + FANOUT_ROWS - 1));
    nudge();
  }
}

await readyThenGo();
const started = performance.now();
const fanOutDone = shape === 'bare' ? Promise.resolve() : fanOutAll();
let lastClaimAt = Number.NEGATIVE_INFINITY;
while (recorded < total) {
  nudged = false;
  const free = freeSlots();
  const claimNow = claimed < total && (free >= claimThreshold || (free > 0 && performance.now() - lastClaimAt >= POLL_INTERVAL_MS));
  if (claimNow) {
    lastClaimAt = performance.now();
    claims++;
    const rows = await claimFloor(sql, shape, free, concurrency);
    claimed += rows.length;
    for (const row of rows) {
      sending++;
      unrecorded++;
      void attempt(row);
    }
  }
  if (nudged || recorded >= total) continue;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, POLL_INTERVAL_MS);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
}
await fanOutDone;
const seconds = (performance.now() - started) / 1000;
// The pool stays open until SIGTERM: the end sample names this process's backends by their
// application_name, so they must still be there.
finish({ sent: total, ok, seconds, perSecond: total / seconds, claims, outcomeWrites, fanOuts });
