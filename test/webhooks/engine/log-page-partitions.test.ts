import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../../src/clock.js';
import { ensureLogPartitions } from '../../../src/jobs/sql/ensureLogPartitions.js';
import { seedDeliveryLog } from '../../support/seed/delivery-log.js';
import { listDeliveryLog, pageRows } from '../../../src/webhooks/sql/listDeliveryLog.js';
import { endpoint, engineFixture, workspace, type EngineFixture } from './helpers.js';

/**
 * A page of the delivery log over daily partitions (migration 0020): the log is partitioned by
 * when a delivery ended, the page is ordered by when it was created, so every partition is read
 * through its own list index in page order and merged (Merge Append) under the page's LIMIT;
 * nothing sorts a workspace's log (only its open deliveries, at most 5 x 1,000, are sorted).
 */
const f = {} as EngineFixture;
let ws: { workspaceId: string; ownerId: string };

type Plan = { 'Node Type': string; 'Index Name'?: string; 'Relation Name'?: string; Plans?: Plan[] };
const nodes = (plan: Plan): Plan[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

beforeAll(async () => {
  Object.assign(f, await engineFixture());
  ws = await workspace(f);
  const ep = await endpoint(f, ws);
  const now = f.clock.now();
  // Four days of log, one delivery a minute, each in its own day's partition.
  await ensureLogPartitions(f.sql, { firstDay: new Date(now.getTime() - 4 * DAY), lastDay: now });
  await seedDeliveryLog(f.sql, { workspaceId: ws.workspaceId, endpointIds: [ep.id], count: 5_000, now });
}, 60_000);

afterAll(async () => f.close?.());

describe('the delivery log page over daily partitions', () => {
  it('merges each partition read in page order through its list index, under the LIMIT, without a sort of the log', async () => {
    const filter = { workspaceId: ws.workspaceId, status: null, eventType: null, endpointId: null, since: null, until: null, q: null };
    const [row] = await f.sql`
      explain (format json)
      select d.id from ${pageRows(f.sql, { ...filter, after: null, limit: 51 })} d`;
    const plan = (row as { 'QUERY PLAN': { Plan: Plan }[] })['QUERY PLAN'][0]!.Plan;
    const all = nodes(plan);
    expect(all.map((n) => n['Node Type'])).toContain('Limit');
    expect(all.map((n) => n['Node Type'])).toContain('Merge Append');
    // Only the open deliveries (no list index on the queue, migration 0036) may be sorted.
    const sorted = all.filter((n) => n['Node Type'] === 'Sort').flatMap(nodes).map((n) => n['Relation Name']).filter(Boolean);
    expect(new Set(sorted)).toEqual(new Set(sorted.length ? ['webhook_queue'] : []));
    const read = all.filter((n) => n['Index Name']?.startsWith('webhook_delivery_log_p')).map((n) => n['Index Name']);
    expect(read.length).toBeGreaterThanOrEqual(4);
    for (const name of read) expect(name).toMatch(/^webhook_delivery_log_p\d{8}_ws_log_idx$/);
  });

  it('answers the same page as one ordered list of every delivery', async () => {
    const page = await listDeliveryLog(f.sql, {
      workspaceId: ws.workspaceId, status: null, eventType: null, endpointId: null, since: null, until: null, q: null, after: null, limit: 50,
    });
    const all = await f.sql<{ id: string }[]>`
      select id from (select id, created_at from webhook_queue union all select id, created_at from webhook_delivery_log) d
       order by created_at desc, id desc limit 50`;
    expect(page.map((r) => r.id)).toEqual(all.map((r) => r.id));
  });
});
