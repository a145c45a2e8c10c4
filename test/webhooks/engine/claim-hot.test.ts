import { describe, expect, it } from 'vitest';
import { claimBatch } from '../../../src/webhooks/engine/claim.js';
import { endpoint, manyEvents, useEngineFixture, workspace } from './helpers.js';

/**
 * The claim writes the lease into columns no index of the queue reads (migration 0036,
 * docs/scaling.md "The write path"), so PostgreSQL can make it a HOT update: no entry in
 * any of the queue's indexes per claim. What the claim writes is claimDeliveries.ts's `claimed`
 * step.
 */
const f = useEngineFixture();

const CLAIM_WRITES = ['status', 'lease_token', 'lease_until', 'lease_worker', 'updated_at'];

describe('the claim and the queue indexes', () => {
  it('no index of the queue holds or filters on a column the claim writes', async () => {
    const rows = await f.sql<{ index: string; columns: string[] }[]>`
      select i.indexrelid::regclass::text as index,
             array(select a.attname::text
                     from pg_attribute a
                    where a.attrelid = i.indrelid and a.attnum > 0
                      and (a.attnum = any (i.indkey::int2[])
                           or pg_get_expr(i.indpred, i.indrelid) ~ ('\\m' || a.attname || '\\M')
                           or pg_get_expr(i.indexprs, i.indrelid) ~ ('\\m' || a.attname || '\\M'))) as columns
        from pg_index i
       where i.indrelid = 'webhook_queue'::regclass`;
    expect(rows.length).toBeGreaterThan(0);
    const reading = rows.filter((row) => row.columns.some((column) => CLAIM_WRITES.includes(column)));
    expect(reading).toEqual([]);
  });

  it('records each claimed delivery as an attempt in flight, and forgets it when the delivery ends', async () => {
    const ws = await workspace(f);
    await endpoint(f, ws);
    await manyEvents(f, ws.workspaceId, 3);
    await f.engine.fanOut();
    const batch = await claimBatch(f.deps, 10);
    expect(batch.deliveries.length).toBeGreaterThan(0);
    const inFlight = await f.sql<{ delivery_id: string; lease_until: Date }[]>`select delivery_id, lease_until from webhook_in_flight`;
    const queue = await f.sql<{ id: string; lease_until: Date }[]>`select id, lease_until from webhook_queue where status = 'sending'`;
    expect(inFlight.map((row) => [row.delivery_id, row.lease_until.getTime()]).sort()).toEqual(
      queue.map((row) => [row.id, row.lease_until.getTime()]).sort(),
    );
    await f.sql`delete from webhook_queue`;
    expect(await f.sql`select delivery_id from webhook_in_flight`).toEqual([]);
  });
});
