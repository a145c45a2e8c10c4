import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../../src/clock.js';
import { seedDeliveryLogDay } from '../../support/seed/delivery-log-days.js';
import { logConditions, type LogFilter } from '../../../src/webhooks/sql/listDeliveryLog.js';
import { endpoint, engineFixture, workspace, type EngineFixture } from './helpers.js';

/**
 * The benchmark's large log (seedDeliveryLogDay) must be laid out as traffic lays it out: the
 * deliveries of the workspaces and endpoints mixed through each day, not one block after another.
 * In blocks, each day's partition holds its workspace's rows in disk order (the planner then rates
 * the workspace's list index as a sequential read and walks it with the endpoint as a filter) and
 * the small endpoint's rows are the newest of its workspace: the page of the endpoint with half
 * the log stepped over them in every day's partition, which no production log looks like.
 */
const f = {} as EngineFixture;
const DAYS = 3;
const PER_DAY = 20_000;
let filter: LogFilter;

type Plan = { 'Node Type': string; 'Index Name'?: string; 'Rows Removed by Filter'?: number; Plans?: Plan[] };
const nodes = (plan: Plan): Plan[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

beforeAll(async () => {
  Object.assign(f, await engineFixture());
  const ws = await workspace(f);
  const other = await workspace(f);
  const endpointIds = [
    (await endpoint(f, ws, { url: 'https://hooks.test/a' })).id,
    (await endpoint(f, ws, { url: 'https://hooks.test/b' })).id,
    (await endpoint(f, ws, { url: 'https://hooks.test/c' })).id,
    (await endpoint(f, other)).id,
  ];
  const today = Math.floor(f.clock.now().getTime() / DAY) * DAY;
  for (let d = DAYS; d >= 1; d--) {
    await seedDeliveryLogDay(f.sql, { day: new Date(today - d * DAY), perDay: PER_DAY, workspaceId: ws.workspaceId, otherId: other.workspaceId, endpointIds });
  }
  await f.sql`analyze webhook_delivery_log, webhook_queue`;
  filter = { workspaceId: ws.workspaceId, status: null, eventType: null, endpointId: endpointIds[0]!, since: null, until: null, q: null };
}, 120_000);

afterAll(async () => f.close?.());

describe("the benchmark's seeded log", () => {
  it('lets the page of the endpoint with half the log read each day through that endpoint\'s list index and stop', async () => {
    const [row] = await f.sql`
      explain (analyze, format json)
      select d.id from webhook_deliveries d
       where ${logConditions(f.sql, filter)}
       order by d.created_at desc, d.id desc
       limit 50`;
    const plan = (row as { 'QUERY PLAN': { Plan: Plan }[] })['QUERY PLAN'][0]!.Plan;
    const days = nodes(plan).filter((n) => /^webhook_delivery_log_p\d{8}_/.test(n['Index Name'] ?? ''));
    const read = days.map((n) => n['Index Name']!.replace(/^webhook_delivery_log_p\d{8}_/, ''));
    expect(days.length).toBeGreaterThanOrEqual(DAYS);
    expect(new Set(read), JSON.stringify(read)).toEqual(new Set(['log_idx']));
    // A page of 50 from a fraction of each day: nothing stepped over on the way.
    const skipped = days.reduce((sum, n) => sum + (n['Rows Removed by Filter'] ?? 0), 0);
    expect(skipped).toBeLessThan(50);
  });
});
