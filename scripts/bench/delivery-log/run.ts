import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { createAccount, createWorkspace } from '../../../src/domain/accounts.js';
import { listDeliveryLogPage, type LogDeps, type LogQuery } from '../../../src/webhooks/management/delivery-log.js';
import { insertEndpoint } from '../../../src/webhooks/sql/insertEndpoint.js';
import { openBenchDatabase } from '../database.js';
import { percentile } from '../numbers.js';
import { SEED_TYPES, seedDeliveryLog } from '../../../src/seed/delivery-log.js';

/**
 * The delivery log's page speed (docs/delivery-log.md: 50 rows, any filter, p95 under 50 ms with
 * 1,000,000 deliveries in the workspace). Seeds the deliveries set-based once into its own bench
 * database (kept between runs; --reseed starts over), then times `--requests` page reads per
 * filter through the same function the console's handler calls (listDeliveryLogPage: the page,
 * its endpoint/offer/last-status columns and the waiting reasons), walking pages with the
 * keyset position and starting over at the end. Prints p50 / p95 / max per filter.
 *
 *   npm run bench:delivery-log -- [--deliveries 1000000] [--requests 200] [--reseed]
 */
const { values } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '200' },
    reseed: { type: 'boolean', default: false },
  },
});
const DELIVERIES = Number(values.deliveries);
const REQUESTS = Number(values.requests);
const PAGE = 50;
const TARGET_P95_MS = 50;
const WORKSPACE_NAME = 'Delivery log benchmark';
if (!Number.isInteger(DELIVERIES) || DELIVERIES < 1000 || !Number.isInteger(REQUESTS) || REQUESTS < 1) {
  process.stderr.write('--deliveries must be a whole number of at least 1000 and --requests at least 1\n');
  process.exit(2);
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const config = loadConfig();
const db = await openBenchDatabase(config, 'offerdesk_bench_delivery_log', { recreate: values.reseed!, log });

/** Two endpoints sharing the log, a third with a small share, and another workspace's log. */
async function ensureSeeded(sql: Sql) {
  const [existing] = await sql<{ id: string }[]>`select id from workspaces where name = ${WORKSPACE_NAME}`;
  let workspaceId = existing?.id;
  if (!workspaceId) {
    const now = systemClock.now();
    const owner = await createAccount(sql, systemClock, { email: `bench-log-${randomBytes(4).toString('hex')}@bench.example`, name: 'Bench Owner' });
    workspaceId = (await createWorkspace(sql, systemClock, { name: WORKSPACE_NAME, timezone: 'UTC', currency: 'EUR', ownerAccountId: owner.id })).id;
    const endpoint = async (workspace: string, url: string) =>
      (await insertEndpoint(sql, { id: randomUUID(), workspaceId: workspace, url, eventTypes: [...SEED_TYPES], secretSealed: randomBytes(60), createdBy: owner.id, now })).id;
    const [a, b, c] = [await endpoint(workspaceId, 'https://hooks.example.com/a'), await endpoint(workspaceId, 'https://hooks.example.com/b'), await endpoint(workspaceId, 'https://hooks.example.com/c')];
    const started = performance.now();
    const small = Math.max(1, Math.floor(DELIVERIES / 50));
    log(`seeding ${DELIVERIES.toLocaleString('en')} deliveries (2 endpoints sharing the log, a third with ${small.toLocaleString('en')})`);
    await seedDeliveryLog(sql, { workspaceId, endpointIds: [a, b], count: Math.floor((DELIVERIES - small) / 2), now, pending: 900 });
    await seedDeliveryLog(sql, { workspaceId, endpointIds: [c], count: small, now: new Date(now.getTime() - 30_000), pending: 50 });
    const other = await createWorkspace(sql, systemClock, { name: 'Another workspace', timezone: 'UTC', currency: 'EUR', ownerAccountId: owner.id });
    await seedDeliveryLog(sql, { workspaceId: other.id, endpointIds: [await endpoint(other.id, 'https://hooks.example.com/o')], count: Math.floor(DELIVERIES / 10), now });
    await sql`vacuum analyze webhook_queue, webhook_delivery_log`;
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const endpoints = (await sql<{ id: string }[]>`select id from webhook_endpoints where workspace_id = ${workspaceId}::uuid order by url`).map((r) => r.id);
  const [pick] = await sql<{ offer_id: string; id: string }[]>`
    select offer_id, id from webhook_messages where workspace_id = ${workspaceId}::uuid order by created_at desc offset ${Math.floor(DELIVERIES / 6)} limit 1`;
  return { workspaceId, endpoints, offerId: pick!.offer_id, webhookId: pick!.id };
}

try {
  const seeded = await ensureSeeded(db.sql);
  const [count] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where workspace_id = ${seeded.workspaceId}::uuid`;
  log(`workspace holds ${count!.n.toLocaleString('en')} deliveries; ${REQUESTS} page reads of ${PAGE} rows per filter`);
  const deps: LogDeps = { sql: db.sql, clock: systemClock, config: config.webhooks };
  const [a, , c] = seeded.endpoints;
  const dayMs = 86_400_000;
  const now = Date.now();
  const filters: [string, Partial<LogQuery>][] = [
    ['no filter', {}],
    ['status=failed', { status: 'failed' }],
    ['status=succeeded', { status: 'succeeded' }],
    ['status=pending', { status: 'pending' }],
    ['status=cancelled', { status: 'cancelled' }],
    ['event_type=offer.expired', { eventType: 'offer.expired' }],
    ['endpoint (half the log)', { endpointId: a! }],
    ['endpoint (2 % of the log)', { endpointId: c! }],
    ['endpoint + status=failed', { endpointId: c!, status: 'failed' }],
    ['endpoint + event_type', { endpointId: c!, eventType: 'offer.signed' }],
    ['since/until (a 10-day range)', { since: new Date(now - 200 * dayMs), until: new Date(now - 190 * dayMs) }],
    ['status=failed + since/until', { status: 'failed', since: new Date(now - 200 * dayMs), until: new Date(now - 190 * dayMs) }],
    ['q=offer id', { q: seeded.offerId }],
    ['q=webhook-id', { q: seeded.webhookId }],
  ];
  let worst = 0;
  for (const [name, filter] of filters) {
    const times: number[] = [];
    let after: { createdAt: string; id: string } | null = null;
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      const page = await listDeliveryLogPage(deps, { workspaceId: seeded.workspaceId, ...filter, after, limit: PAGE + 1 });
      times.push(performance.now() - started);
      const last = page.rows.length > PAGE ? page.rows[PAGE - 1] : undefined;
      after = last ? { createdAt: last.key, id: last.id } : null;
    }
    times.sort((x, y) => x - y);
    const p95 = percentile(times, 95);
    worst = Math.max(worst, p95);
    const ms = (value: number) => `${value.toFixed(1).padStart(7)} ms`;
    log(`${name.padEnd(32)} p50 ${ms(percentile(times, 50))}   p95 ${ms(p95)}   max ${ms(times.at(-1)!)}  ${p95 < TARGET_P95_MS ? 'ok' : 'MISSED'}`);
  }
  log(`worst p95 ${worst.toFixed(1)} ms; target p95 < ${TARGET_P95_MS} ms: ${worst < TARGET_P95_MS ? 'met' : 'MISSED'}`);
  process.exitCode = worst < TARGET_P95_MS ? 0 : 1;
} finally {
  await db.close();
}
