import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../src/config.js';
import type { Sql } from '../../../src/db/connect.js';
import { seedTenants, type TenantRow } from '../../../test/support/seed/tenants.js';
import { startAutoanalyzeStandIn } from '../autoanalyze.js';
import { openBenchDatabase } from '../database.js';
import { percentile } from '../numbers.js';
import { waitUntil } from '../processes.js';
import { backlogRun, waitForArrivals, type Bench } from './harness.js';
import { commitEvents, ensureWebhookWorkspaces } from './setup.js';

/** The longest a run is timed: a claim that grows with the workspaces may not reach its count. */
const WINDOW_MS = 120_000;

/**
 * Many tenants (`--workspaces n --idle-workspaces m`; docs/performance.md): a reference run over `options.workspaces`
 * busy workspaces and a scale run over all n, each with newly active ones committed meanwhile (the same fan-out on each
 * side); the idle ones wait ahead of the busy ones, as the round-robin leaves them (docs/webhook-delivery.md "Fairness").
 */
export async function workspaceScalePhase(main: Bench) {
  const { scale: { busy, idle }, workspaces, backlogSizes, backlogMeasured, fairnessSmallWorkspaces } = main.options;
  const sizes = { workspaces: fairnessSmallWorkspaces, endpoints: 1, idle, busy };
  return inOwnDatabase(main, `offerdesk_bench_ws_${busy}_${idle}_${fairnessSmallWorkspaces}`, sizes, async (b) => {
    const fresh = b.setup.workspaces.map((w) => w.id);
    const busyIds = (await b.sql<{ id: string }[]>`select id from workspaces where name like 'Tenant busy %' order by id`).map((r) => r.id);
    const open = backlogSizes.at(-1)!;
    const measured = backlogMeasured * 10;
    const reference = await scaleRun(b, `${workspaces} busy workspaces`, busyIds.slice(0, workspaces), open, measured, fresh);
    const scale = await scaleRun(b, `${busy} busy + ${idle} idle`, busyIds, open, measured, fresh);
    return { busy, idle, reference, scale, ratio: scale.perSecond / reference.perSecond };
  });
}

/** A phase in a database of its own, seeded once (its name holds the sizes); `run` gets a Bench on it. */
export async function inOwnDatabase<T>(main: Bench, name: string, sizes: { workspaces: number; endpoints: number; idle: number; busy: number }, run: (b: Bench) => Promise<T>): Promise<T> {
  const db = await openBenchDatabase(loadConfig(), name, { recreate: false, log: main.log });
  const stopAnalyze = startAutoanalyzeStandIn(db.sql, db.setup.autovacuum, () => {});
  try {
    const setup = await ensureWebhookWorkspaces(db.sql, sizes.workspaces, main.log);
    const masterKey = await ensureScaleWorkspaces(db.sql, { ...sizes, fresh: setup.workspaces.map((w) => w.id) }, main.log);
    const env = { ...main.env, DATABASE_URL: db.url, OFFERDESK_MASTER_KEY: masterKey };
    return await run({ ...main, sql: db.sql, env, setup, workspaces: setup.workspaces.slice(0, main.options.workspaces) });
  } finally {
    await stopAnalyze();
    await db.close();
  }
}

/** One worker against `open` deliveries over `busyIds`; meanwhile `fresh` workspaces' first attempts, timed from their commit. */
async function scaleRun(b: Bench, label: string, busyIds: string[], open: number, measured: number, fresh: string[]) {
  const { sql, receiver, options } = b;
  // The idle workspaces queued ahead of the busy ones and waiting longer (never served), each at a
  // position of its own (migration 0038); the ring's cursor before the first place, so the claim
  // reads the ring from its start.
  await sql`update webhook_workspace_state s set queue_position = r.place, window_started_at = null, window_starts = 0,
                   last_served_at = case when r.busy then now() end
              from (select x.workspace_id, w.name like 'Tenant busy %' as busy,
                           row_number() over (order by w.name like 'Tenant busy %', x.workspace_id) as place
                      from webhook_workspace_state x join workspaces w on w.id = x.workspace_id) r
             where r.workspace_id = s.workspace_id`;
  await sql`delete from webhook_round_robin`;
  const deadline = Date.now() + WINDOW_MS;
  // A workspace's first attempt: the first arrival at its endpoint (each has one here).
  const newlyActive = async () => {
    await waitForArrivals(receiver, options.backlogMeasured, deadline);
    const commit = await commitEvents(sql, fresh.map((workspaceId) => ({ workspaceId, count: options.fairnessSmallEvents })));
    await waitUntil('newly active workspaces had no first attempt', async () => (await receiver.summary('/fresh/')).paths >= fresh.length, () => false, WINDOW_MS);
    const firsts = new Map<string, number>();
    for (const [, path, at] of await receiver.arrivals()) if (path.startsWith('/fresh/')) firsts.set(path, Math.min(at, firsts.get(path) ?? Infinity));
    const times = [...firsts.values()].map((at) => at - commit.committedAt).sort((x, y) => x - y);
    return { workspaces: fresh.length, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: times.at(-1) ?? NaN };
  };
  const run = await backlogRun(b, busyIds, Math.max(1, Math.round(open / busyIds.length)), measured, { deadline, meanwhile: newlyActive });
  const row = { label, workspaces: busyIds.length, ...run, newlyActive: run.meanwhile ?? null };
  const active = row.newlyActive ? `; first attempts of ${row.newlyActive.workspaces} newly active workspaces p99 ${(row.newlyActive.p99Ms / 1000).toFixed(2)} s` : '';
  b.log(`${label}: ${row.openDeliveries} open, first ${row.measured} first attempts at ${row.perSecond.toFixed(0)}/s${active}`);
  return row;
}

/** The tenants, endpoints and queue rows, once (test/support/seed/tenants.ts); returns the master key their secrets are sealed under. */
export async function ensureScaleWorkspaces(sql: Sql, sizes: { fresh: string[]; endpoints: number; idle: number; busy: number }, log: (line: string) => void): Promise<string> {
  await sql`create table if not exists bench_scale_setup (id int constraint bench_scale_setup_pkey primary key, master_key text not null)`;
  const [kept] = await sql<{ master_key: string }[]>`select master_key from bench_scale_setup where id = 1`;
  if (kept) return kept.master_key;
  const masterKey = randomBytes(32);
  const rows: TenantRow[] = [
    ...sizes.fresh.flatMap((workspaceId) => Array.from({ length: sizes.endpoints }, () => ({ workspaceId, kind: 'fresh' }))),
    ...Array.from({ length: sizes.idle }, () => ({ workspaceId: null, kind: 'idle' })),
    ...Array.from({ length: sizes.busy }, () => ({ workspaceId: null, kind: 'busy' })),
  ];
  const started = performance.now();
  const progress = (done: number) => log(`  scale seed: ${done.toLocaleString('en')} of ${rows.length.toLocaleString('en')} endpoints, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await seedTenants(sql, { rows, host: 'hooks.test', masterKey, queuePosition: (kind) => (kind === 'busy' ? 2 : 1), progress });
  await sql`insert into bench_scale_setup (id, master_key) values (1, ${masterKey.toString('base64')})`;
  await sql`vacuum analyze workspaces, webhook_endpoints, webhook_workspace_state`;
  return masterKey.toString('base64');
}
