import type { Sql } from '../../src/db/connect.js';
import type { BenchOptions } from './options.js';
import { cli } from './processes.js';

/**
 * The read bench's data, seeded through the CLI: one big workspace and a few others (every query filters by
 * workspace), recorded in `bench_seed` and reused by runs with the same parameters (`--reseed` forces a new one).
 */
type SeedParams = BenchOptions['seed'];
/** What was seeded; originalSeedSeconds: the seed that produced the data (this run's or an earlier one's). */
type SeedRecord = {
  params: SeedParams;
  data: { accountId: string; workspaceId: string; otherWorkspaceIds: string[]; offers: number; events: number; originalSeedSeconds: number; vacuumSeconds: number; seededAt: string };
};
/** seedSeconds: this run's seed, or null when the data of an earlier run was reused. */
export type SeededData = SeedRecord['data'] & { seedSeconds: number | null };

export async function ensureSeeded(sql: Sql, url: string, params: SeedParams, log: (line: string) => void): Promise<SeededData> {
  await sql`
    create table if not exists bench_seed (
      id int constraint bench_seed_pkey primary key default 1 constraint bench_seed_single check (id = 1),
      record jsonb not null
    )`;
  const [kept] = await sql<SeedRecord[]>`select record->'params' as params, record->'data' as data from bench_seed where id = 1`;
  if (kept) {
    // jsonb does not keep key order: compare field by field.
    if ((Object.keys(params) as (keyof SeedParams)[]).every((key) => kept.params[key] === params[key])) {
      log(`reusing seeded data of ${kept.data.seededAt} (${kept.data.offers} offers, ${kept.data.events} timeline entries)`);
      return { ...kept.data, seedSeconds: null };
    }
    throw new Error(`the bench database holds data seeded with other parameters (${JSON.stringify(kept.params)}); run with --reseed`);
  }
  const [dirty] = await sql`select 1 as found from workspaces limit 1`;
  if (dirty) throw new Error('the bench database holds workspaces but no seed record (an interrupted seed?); run with --reseed');

  const started = performance.now();
  const account = await cli<{ id: string }>(url, ['account', 'create', '--email', 'bench-owner@offerdesk.example', '--name', 'Bench Owner']);
  const workspace = (name: string, timezone: string, currency: string) =>
    cli<{ id: string }>(url, ['workspace', 'create', '--name', name, '--timezone', timezone, '--currency', currency, '--owner', account.id]);
  const seed = (workspaceId: string, offers: number, randomSeed: number) =>
    cli<{ offers: number; events: number }>(url, ['seed', '--workspace', workspaceId, '--offers', String(offers), '--random-seed', String(randomSeed)]);
  const main = await workspace('Bench Workspace', 'Europe/Berlin', 'EUR');
  log(`  offerdesk seed --offers ${params.offers} (progress on stderr)`);
  let { offers, events } = await seed(main.id, params.offers, params.randomSeed);
  const others: string[] = [];
  for (let n = 1; n <= params.otherWorkspaces; n++) {
    const other = await workspace(`Other Workspace ${n}`, 'America/New_York', 'USD');
    const result = await seed(other.id, params.offersPerOtherWorkspace, params.randomSeed + 1 + n);
    offers += result.offers;
    events += result.events;
    others.push(other.id);
  }
  const seedSeconds = (performance.now() - started) / 1000;
  log(`seeded ${offers.toLocaleString('en')} offers and ${events.toLocaleString('en')} timeline entries in ${seedSeconds.toFixed(1)} s`);

  // The steady state: a bulk-loaded table has no visibility map or statistics until autovacuum gets there.
  const vacuumStarted = performance.now();
  await sql`vacuum (analyze) offers, offer_events, api_keys, workspaces`;
  const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
  log(`vacuum analyze: ${vacuumSeconds.toFixed(1)} s`);

  const data = { accountId: account.id, workspaceId: main.id, otherWorkspaceIds: others, offers, events, originalSeedSeconds: seedSeconds, vacuumSeconds, seededAt: new Date().toISOString() };
  await sql`insert into bench_seed (id, record) values (1, ${sql.json({ params, data } as never)})`;
  return { ...data, seedSeconds };
}
