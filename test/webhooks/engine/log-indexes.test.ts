import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../../src/clock.js';
import { logConditions, pageRows, type LogFilter } from '../../../src/webhooks/sql/listDeliveryLog.js';
import { MAX_ENDPOINTS_PER_WORKSPACE, MAX_OPEN_DELIVERIES_PER_ENDPOINT } from '../../../src/webhooks/engine/policy.js';
import { seedDeliveryLog } from '../../support/seed/delivery-log.js';
import { endpoint, engineFixture, workspace, type EngineFixture } from './helpers.js';

/**
 * The delivery log's page must not grow with the log (docs/delivery-log.md: 50 rows of 1,000,000 under
 * any filter). Proved on the plan: each filter reads one index of the log in the list's order and
 * stops after the page (no Sort node over the filtered log), on page 1 and on a deep page alike.
 * The open deliveries have no list index (migration 0036) and are sorted: at most 5 x 1,000 of a
 * workspace.
 */
// One seeded database for the whole file (the shared fixture empties it before every test).
const f = {} as EngineFixture;
const MESSAGES = 30_000;

let ws: { workspaceId: string; ownerId: string };
let endpoints: string[];
let small: string;
let offerId: string;
let webhookId: string;

type Plan = { 'Node Type': string; 'Index Name'?: string; 'Relation Name'?: string; 'Actual Rows'?: number; Plans?: Plan[] };

function nodes(plan: Plan): Plan[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

const PAGE = 51;

async function explain(filter: LogFilter, after: { createdAt: string; id: string } | null): Promise<Plan> {
  const [row] = await f.sql`
    explain (analyze, format json)
    select d.id from ${pageRows(f.sql, { ...filter, after, limit: PAGE })} d`;
  return (row as { 'QUERY PLAN': { Plan: Plan }[] })['QUERY PLAN'][0]!.Plan;
}

/**
 * Sorts the page may not hold: one whose input reads the log and is more than the page's two
 * sides, or one of the open deliveries alone beyond their bound (5 endpoints x 1,000).
 */
function unboundedSorts(all: Plan[]): Plan[] {
  const bound = MAX_ENDPOINTS_PER_WORKSPACE * MAX_OPEN_DELIVERIES_PER_ENDPOINT;
  return all.filter((n) => {
    if (n['Node Type'] !== 'Sort') return false;
    const input = (n.Plans ?? []).reduce((sum, p) => sum + (p['Actual Rows'] ?? 0), 0);
    const readsLog = nodes(n).some((m) => m['Relation Name'] !== undefined && m['Relation Name'] !== 'webhook_queue');
    return readsLog ? input > 2 * PAGE : input > bound;
  });
}

/**
 * The indexes a plan read, each partition's index named by the parent index it belongs to (the
 * delivery log is partitioned by day, migration 0020).
 */
async function indexesUsed(all: Plan[]): Promise<string[]> {
  const names = all.map((n) => n['Index Name']).filter((name): name is string => Boolean(name));
  const rows = await f.sql<{ name: string; parent: string }[]>`
    select c.relname as name, coalesce(p.relname, c.relname) as parent
      from pg_class c
      left join pg_inherits i on i.inhrelid = c.oid
      left join pg_class p on p.oid = i.inhparent
     where c.relname = any (${names}::text[])`;
  const parents = new Map(rows.map((row) => [row.name, row.parent]));
  return names.map((name) => parents.get(name) ?? name);
}

function describePlan(plan: Plan, depth = 0): string {
  const line = `${' '.repeat(depth * 2)}${plan['Node Type']}${plan['Index Name'] ? ` on ${plan['Index Name']}` : ''} rows=${plan['Actual Rows']}`;
  return [line, ...(plan.Plans ?? []).map((p) => describePlan(p, depth + 1))].join('\n');
}

/** A keyset position about halfway down the filtered log. */
async function middle(filter: LogFilter): Promise<{ createdAt: string; id: string } | null> {
  const [row] = await f.sql<{ created_at: string; id: string }[]>`
    select d.created_at::text as created_at, d.id from webhook_deliveries d
     where ${logConditions(f.sql, filter)}
     order by d.created_at desc, d.id desc
     offset (select count(*) / 2 from webhook_deliveries d where ${logConditions(f.sql, filter)}) limit 1`;
  return row ? { createdAt: row.created_at, id: row.id } : null;
}

function base(): LogFilter {
  return { workspaceId: ws.workspaceId, status: null, eventType: null, endpointId: null, since: null, until: null, q: null };
}

afterAll(async () => f.close?.());

beforeAll(async () => {
  Object.assign(f, await engineFixture());
  ws = await workspace(f);
  endpoints = [(await endpoint(f, ws, { url: 'https://hooks.test/a' })).id, (await endpoint(f, ws, { url: 'https://hooks.test/b' })).id];
  // A third endpoint with a small share of the log: its filter must not walk the workspace's.
  small = (await endpoint(f, ws, { url: 'https://hooks.test/c' })).id;
  await seedDeliveryLog(f.sql, { workspaceId: ws.workspaceId, endpointIds: [small], count: 2_000, now: new Date(f.clock.now().getTime() - 30_000) });
  // Another workspace's log in the same table, as in production.
  const other = await workspace(f);
  const otherEndpoint = (await endpoint(f, other)).id;
  await seedDeliveryLog(f.sql, { workspaceId: other.workspaceId, endpointIds: [otherEndpoint], count: 5_000, now: f.clock.now() });
  // And its open deliveries in the queue (a resend moves them there, as here), so that the plans
  // below see a queue with rows and statistics, as in production, not an empty table.
  await f.sql`
    with reopened as (
      delete from webhook_delivery_log
       where id in (select id from webhook_delivery_log where workspace_id = ${other.workspaceId}::uuid limit 3000)
      returning *
    )
    insert into webhook_queue
      (id, message_id, endpoint_id, workspace_id, event_type, is_test, status, attempt_count, max_attempts,
       next_attempt_at, resend_count, created_at, updated_at)
    select id, message_id, endpoint_id, workspace_id, event_type, is_test, 'pending', attempt_count, attempt_count + 1,
           created_at, resend_count, created_at, created_at
      from reopened`;
  await f.sql`analyze webhook_queue`;
  await seedDeliveryLog(f.sql, { workspaceId: ws.workspaceId, endpointIds: endpoints, count: MESSAGES, now: f.clock.now() });
  const [row] = await f.sql<{ offer_id: string; id: string }[]>`
    select offer_id, id from webhook_messages where workspace_id = ${ws.workspaceId}::uuid order by created_at desc offset 20000 limit 1`;
  offerId = row!.offer_id;
  webhookId = row!.id;
}, 120_000);

const now = () => new Date('2026-01-15T10:00:00.000Z');

const FILTERS: [string, () => Partial<LogFilter>, string[]][] = [
  ['no filter', () => ({}), ['webhook_deliveries_ws_log_idx']],
  ['status failed', () => ({ status: 'failed' }), ['webhook_deliveries_ws_status_log_idx']],
  // Most rows succeed: the plain list index with the status as a filter is as good.
  ['status succeeded', () => ({ status: 'succeeded' }), ['webhook_deliveries_ws_status_log_idx', 'webhook_deliveries_ws_log_idx']],
  ['status cancelled', () => ({ status: 'cancelled' }), ['webhook_deliveries_ws_status_log_idx']],
  ['event type', () => ({ eventType: 'offer.expired' }), ['webhook_deliveries_ws_type_log_idx']],
  ['event type nobody has', () => ({ eventType: 'offer.unknown' }), ['webhook_deliveries_ws_type_log_idx']],
  ['endpoint', () => ({ endpointId: small }), ['webhook_deliveries_log_idx']],
  ['endpoint and status', () => ({ endpointId: small, status: 'failed' }), ['webhook_deliveries_endpoint_status_log_idx']],
  ['endpoint and type', () => ({ endpointId: small, eventType: 'offer.signed' }), ['webhook_deliveries_endpoint_type_log_idx']],
  // An endpoint with half the log: the workspace's index with the endpoint as a filter is as good.
  [
    'endpoint with half the log',
    () => ({ endpointId: endpoints[1]! }),
    ['webhook_deliveries_log_idx', 'webhook_deliveries_ws_log_idx'],
  ],
  [
    'time range',
    () => ({ since: new Date(now().getTime() - 15 * DAY), until: new Date(now().getTime() - 5 * DAY) }),
    ['webhook_deliveries_ws_log_idx'],
  ],
  [
    'status and time range',
    () => ({ status: 'failed', since: new Date(now().getTime() - 15 * DAY), until: new Date(now().getTime() - 5 * DAY) }),
    ['webhook_deliveries_ws_status_log_idx'],
  ],
];

describe('every filter of the delivery log reads one index in list order', () => {
  it.each(FILTERS)('%s: no sort, a list index, on page 1 and a deep page', async (_name, filter, indexes) => {
    const full = { ...base(), ...filter() };
    for (const after of [null, await middle(full)]) {
      const plan = await explain(full, after);
      const all = nodes(plan);
      expect(unboundedSorts(all).map((n) => describePlan(n)), describePlan(plan)).toEqual([]);
      const used = await indexesUsed(all);
      expect(used.some((name) => indexes.includes(name!)), JSON.stringify(used)).toBe(true);
      expect(all.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      if (after === null && !full.eventType?.includes('unknown')) expect(plan['Actual Rows'], 'the seed has rows for this filter').toBeGreaterThan(0);
    }
  });

  it('status pending sorts at most the open deliveries, which docs/webhook-delivery.md "Limits" bounds', async () => {
    const full = { ...base(), status: 'pending' as const };
    const plan = await explain(full, null);
    const all = nodes(plan);
    expect(all.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(plan['Actual Rows']).toBeGreaterThan(0);
    // 5 endpoints x 1,000 open deliveries at most, whatever the size of the log.
    expect(unboundedSorts(all).map((n) => describePlan(n))).toEqual([]);
    const used = await indexesUsed(all);
    expect(used).toContain('webhook_queue_workspace_due_idx');
  });

  it.each([
    ['an offer id', () => offerId],
    ['a webhook-id', () => webhookId],
  ])('search by %s reads the few matching deliveries by key, never the workspace', async (_name, q) => {
    const plan = await explain({ ...base(), q: q() }, null);
    const all = nodes(plan);
    expect(all.map((n) => n['Node Type']), describePlan(plan)).not.toContain('Seq Scan');
    // What is sorted is the handful of deliveries of the match (events of one offer x endpoints).
    for (const sort of all.filter((n) => n['Node Type'] === 'Sort')) expect(sort['Actual Rows']).toBeLessThanOrEqual(8 * endpoints.length);
    expect(plan['Actual Rows']).toBeGreaterThan(0);
    expect(plan['Actual Rows']).toBeLessThanOrEqual(8 * endpoints.length);
    // And no node reads the workspace's log (30,000 rows here): a plan that walks it in the list's
    // order, keeping the rows of the matching messages, needs no Sort, yet reads all of it (what
    // PostgreSQL chose for `in (select ...)` at 20,000,000 rows: seconds a page). The queue's part
    // may read the workspace's open deliveries, which docs/webhook-delivery.md "Limits" bounds.
    const openBound = MAX_ENDPOINTS_PER_WORKSPACE * MAX_OPEN_DELIVERIES_PER_ENDPOINT;
    for (const node of all) expect(node['Actual Rows'] ?? 0, describePlan(plan)).toBeLessThanOrEqual(openBound);
  });
});
