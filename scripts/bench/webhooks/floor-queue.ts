import { loadConfig } from '../../../src/config.js';
import { connect } from '../../../src/db/connect.js';
import { createLogger } from '../../../src/log.js';
import { claimWhenFreeSlots, POLL_INTERVAL_MS } from '../../../src/webhooks/engine/policy.js';
import { loadMasterKeys, openSecret } from '../../../src/webhooks/transport/secrets.js';
import { createWebhookSender } from '../../../src/webhooks/transport/sender.js';
import { finish, readyThenGo } from './measured-process.js';
import { FLOOR_TABLE } from './floor.js';

/**
 * The PostgreSQL queue floor (docs/performance.md): the deliveries of bench_floor_queue sent by
 * the project's sender at the worker's concurrency, taken from and recorded in PostgreSQL by the
 * simplest durable queue, with none of SPEC.md's webhook limits (no fairness, start rate,
 * per-endpoint share, leases, attempt log or retry schedule). It batches as the worker does: it
 * claims when all its slots are free (or at the worker's poll with some free), a slot is free once
 * its request has ended, outcomes are group-committed (what finishes during a write goes in the
 * next), and at most one concurrency's worth of outcomes wait beyond the slots. The claim is one
 * `update ... where id in (select ... for update skip locked limit n) returning`; each outcome
 * batch one `update ... where id = any($1)`, each its own transaction.
 *
 * Endpoint secrets are opened once per endpoint before the clock starts, as the baseline sender
 * does. Arguments: <concurrency>. Environment as for the worker. Started by runMeasured; its result
 * is {"sent","ok","seconds","perSecond","claims","outcomeWrites"}, the clock running from the
 * first claim to the last outcome committed.
 */
const concurrency = Number(process.argv[2]);
const config = loadConfig();
if (!config.databaseUrl) throw new Error('floor-queue needs DATABASE_URL');
const logger = createLogger('warn', 'offerdesk-bench-floor');
const masterKeys = loadMasterKeys(config, logger);
const sql = connect(config.databaseUrl, { max: config.databasePoolSize, applicationName: 'offerdesk-bench-floor' });
const table = sql(FLOOR_TABLE);

const endpoints = await sql<{ id: string; secret_sealed: Buffer }[]>`
  select e.id, e.secret_sealed from webhook_endpoints e where e.id in (select distinct endpoint_id from ${table})`;
const secrets = new Map(endpoints.map((e) => [e.id, openSecret(masterKeys, e.id, e.secret_sealed)]));
const [{ total } = { total: 0 }] = await sql<{ total: number }[]>`select count(*)::int as total from ${table} where status = 'pending'`;
const sender = createWebhookSender({ config: config.webhooks, logger });

interface Row {
  id: number;
  endpoint_id: string;
  url: string;
  message_id: string;
  body: string;
}

const claimThreshold = claimWhenFreeSlots(concurrency);
let sending = 0;
let unrecorded = 0;
let claimed = 0;
let recorded = 0;
let ok = 0;
let claims = 0;
let outcomeWrites = 0;
let waiting: { id: number; ok: boolean }[] = [];
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

async function claim(limit: number): Promise<Row[]> {
  claims++;
  return sql<Row[]>`
    update ${table} set status = 'sending', attempts = attempts + 1, updated_at = now()
     where id in (select id from ${table}
                   where status = 'pending' and next_attempt_at <= now()
                   order by next_attempt_at, id
                   for update skip locked
                   limit ${limit})
    returning id, endpoint_id, url, message_id, body`;
}

/** Group commit: outcomes that arrive during a write go together in the next. */
async function writeOutcomes(): Promise<void> {
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    const delivered = batch.filter((o) => o.ok).map((o) => o.id);
    const failed = batch.filter((o) => !o.ok).map((o) => o.id);
    if (delivered.length > 0) {
      outcomeWrites++;
      await sql`update ${table} set status = 'delivered', updated_at = now() where id = any (${delivered}::bigint[])`;
    }
    if (failed.length > 0) {
      outcomeWrites++;
      await sql`update ${table} set status = 'pending', next_attempt_at = now() + interval '1 minute', updated_at = now() where id = any (${failed}::bigint[])`;
    }
    unrecorded -= batch.length;
    recorded += batch.length;
    if (freeSlots() >= claimThreshold || recorded === total) nudge();
  }
  writing = false;
}

function record(id: number, delivered: boolean): void {
  waiting.push({ id, ok: delivered });
  if (writing) return;
  writing = true;
  setImmediate(() => void writeOutcomes());
}

async function attempt(row: Row): Promise<void> {
  const outcome = await sender.send({
    url: row.url,
    secret: secrets.get(row.endpoint_id)!,
    messageId: row.message_id,
    body: row.body,
    attemptAt: new Date(),
    customOfferDomains: [],
  });
  sending--;
  if (outcome.ok) ok++;
  record(row.id, outcome.ok);
  if (freeSlots() >= claimThreshold) nudge();
}

await readyThenGo();
const started = performance.now();
let lastClaimAt = Number.NEGATIVE_INFINITY;
while (recorded < total) {
  nudged = false;
  const free = freeSlots();
  const claimNow = claimed < total && (free >= claimThreshold || (free > 0 && performance.now() - lastClaimAt >= POLL_INTERVAL_MS));
  if (claimNow) {
    lastClaimAt = performance.now();
    const rows = await claim(free);
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
const seconds = (performance.now() - started) / 1000;
// The pool stays open until SIGTERM: the end sample names this process's backends by their
// application_name, so they must still be there.
finish({ sent: total, ok, seconds, perSecond: total / seconds, claims, outcomeWrites });
