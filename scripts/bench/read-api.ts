import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from '../../src/db/connect.js';
import type { LoadResult, LoadSpec } from './load.js';
import type { BenchOptions } from './options.js';
import { benchEnv, cli, cpuMs, peakRssMb, resetPeakRss, runJson, startServer, startService, type NodeProcess } from './processes.js';
import type { SeededData } from './seed-data.js';
import { clearEndpoints } from './webhooks/setup.js';
import { measureTracingCost } from './tracing-sink.js';

/** Read API: the service as it ships (limits lifted) against the bare baseline server, scenario by scenario (docs/performance.md). */

/** The read sizes of options.ts; profileDir: add --cpu-prof to the service, profiles land there. */
export type ReadOptions = BenchOptions['read'] & { profileDir: string | null; workDir: string; log: (line: string) => void };
/** One side of a scenario: the load's result, the server's peak RSS and CPU time (user + system) per response. */
export type SideResult = LoadResult & { peakRssMb: number | null; serverCpuMsPerRequest: number | null };
/** As bench/results.json holds it: per scenario service, baseline, ratio (service req/s over the baseline's). */
export type ReadResults = Awaited<ReturnType<typeof runReadBenchmark>>;

type Side = { proc: NodeProcess; origin: string };

/** unauthorized: the 401 storm, every key unknown; the baseline runs the key lookup for it alone. */
type Scenario = { name: string; description: string; requests: { path: string; headers: Record<string, string> }[]; unauthorized: boolean };

const BASE = '/api/v1';
/** Limits lifted far above anything a 2-core machine can send in a window. */
const LIFTED_LIMIT = '1000000000';

export async function runReadBenchmark(sql: Sql, db: { url: string }, seeded: SeededData, options: ReadOptions) {
  const { key } = await cli<{ key: string }>(db.url, ['key', 'create', '--workspace', seeded.workspaceId, '--name', `bench ${new Date().toISOString()}`, '--as', seeded.accountId]);
  const auth = { authorization: `Bearer ${key}` };

  // Endpoints left by a webhook run are sealed under its master key; the service would refuse to start under ours.
  await clearEndpoints(sql);
  // The service runs built: from source, the TypeScript loader alone added tens of MB to its peak RSS.
  const profile = options.profileDir;
  if (profile) rmSync(profile, { recursive: true, force: true });
  // With --profile, every service process of the part (the tracing sides too) writes <name>.cpuprofile.
  const startLifted = (name: string, env: Record<string, string>, cpu?: number) =>
    startService(name, db.url, { RATE_LIMIT_PER_KEY: LIFTED_LIMIT, RATE_LIMIT_PER_IP: LIFTED_LIMIT, ...env }, options.workDir,
      profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, `--cpu-prof-name=${name}.cpuprofile`] : [], cpu);
  const [service, baseline] = await Promise.all([
    startLifted('service', {}),
    startServer('baseline', 'baseline-server.ts', { env: { ...benchEnv(db.url), HOST: '127.0.0.1', BENCH_WORKSPACE_ID: seeded.workspaceId }, workDir: options.workDir }),
  ]);
  const sides = { service, baseline };
  try {
    const ids = await sql<{ id: string }[]>`
      select id from offers where workspace_id = ${seeded.workspaceId}::uuid order by random() limit ${options.rotatingIds}`;
    const walk = await deepCursors(sql, service.origin, auth, options);
    options.log(
      walk.requests === 0
        ? `reusing ${walk.cursors.length} cursors around page ${options.deepPage} collected by an earlier run`
        : `collected ${walk.cursors.length} cursors around page ${options.deepPage} by walking the API (${walk.requests} requests, ${walk.seconds.toFixed(1)} s)`,
    );

    const scenarios = buildScenarios(ids.map((r) => r.id), walk.cursors, key, options);
    await checkSameAnswers(scenarios, service.origin, baseline.origin);

    const results = [];
    for (const [index, scenario] of scenarios.entries()) {
      await setBaselineKeys(baseline.origin, scenario.unauthorized ? 'lookup' : 'none');
      // Alternate which side goes first, so a drift in machine load does not always favour one.
      const order = index % 2 === 0 ? (['baseline', 'service'] as const) : (['service', 'baseline'] as const);
      const measured: Partial<Record<'service' | 'baseline', SideResult>> = {};
      for (const side of order) measured[side] = await measureSide(sides[side], scenario, options);
      const [s, b] = [measured.service!, measured.baseline!];
      const statusesAsExpected = [s, b].every((r) => r.errors === 0 && Object.keys(r.statuses).every((code) => Number(code) === (scenario.unauthorized ? 401 : 200)));
      results.push({ name: scenario.name, description: scenario.description, service: s, baseline: b, ratio: s.requestsPerSecond / b.requestsPerSecond, statusesAsExpected });
      const side = (r: SideResult) => `${r.requestsPerSecond.toFixed(0).padStart(6)} req/s p50 ${r.p50Ms.toFixed(2)} p99 ${r.p99Ms.toFixed(2)} ms`;
      options.log(
        `${scenario.name.padEnd(18)} service ${side(s)} | baseline ${side(b)} | ratio ${results.at(-1)!.ratio.toFixed(2)} | cpu/req ${s.serverCpuMsPerRequest?.toFixed(3)} vs ${b.serverCpuMsPerRequest?.toFixed(3)} ms` +
          (statusesAsExpected ? '' : `  UNEXPECTED statuses ${JSON.stringify(s.statuses)} / ${JSON.stringify(b.statuses)}, errors ${s.errors} / ${b.errors}, timeouts ${s.timeouts} / ${b.timeouts}`),
      );
    }
    const [mix, untracedRequestsPerSecond] = [scenarios.find((s) => s.name === 'mix')!, results.find((r) => r.name === 'mix')!.service.requestsPerSecond];
    const measure = (side: Side, rate?: number) => measureSide(side, mix, { ...options, rate });
    const tracing = await measureTracingCost({ scenario: mix.name, untracedRequestsPerSecond, start: startLifted, measure, log: options.log, rounds: options.tracingRounds, warmUp: options.warmupSeconds > 0 });
    const first = results.find((r) => r.name === 'offers-page-1')!;
    const deep = results.find((r) => r.name === 'offers-page-deep')!;
    const peaks = results.map((r) => r.service.peakRssMb).filter((v): v is number => v !== null);
    return {
      scenarios: results,
      /** Page N's p50 over page 1's, and page 1's req/s over page N's (target <= 1.2 each). */
      deepPageLatencyRatio: deep.service.p50Ms / first.service.p50Ms,
      deepPageTimeRatio: first.service.requestsPerSecond / deep.service.requestsPerSecond,
      servicePeakRssMb: peaks.length ? Math.max(...peaks, peakRssMb(service.proc.pid) ?? 0) : null,
      cursorWalk: { requests: walk.requests, seconds: walk.seconds, depth: walk.depth },
      profile,
      tracing,
    };
  } finally {
    await Promise.all([service.proc.stop(), baseline.proc.stop()]);
  }
}

/** One side of one scenario: warm-up, then the measured load with the server's CPU time and peak RSS around it. */
async function measureSide({ proc, origin }: Side, scenario: Scenario, options: ReadOptions & { rate?: number }): Promise<SideResult> {
  if (options.warmupSeconds > 0) await load(origin, scenario, options.warmupSeconds, options);
  resetPeakRss(proc.pid);
  const cpuBefore = cpuMs(proc.pid);
  const result = await load(origin, scenario, options.durationSeconds, options);
  const cpuAfter = cpuMs(proc.pid);
  const serverCpuMsPerRequest = cpuBefore !== null && cpuAfter !== null && result.requests > 0 ? (cpuAfter - cpuBefore) / result.requests : null;
  return { ...result, peakRssMb: peakRssMb(proc.pid), serverCpuMsPerRequest };
}

async function load(origin: string, scenario: Scenario, seconds: number, options: ReadOptions & { rate?: number }): Promise<LoadResult> {
  const spec: LoadSpec = { origin, connections: options.connections, durationSeconds: seconds, rate: options.rate, requests: scenario.requests };
  const file = join(options.workDir, `load-spec-${new URL(origin).port}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return runJson<LoadResult>('load', 'load.ts', [file]);
}

async function setBaselineKeys(origin: string, mode: 'none' | 'lookup'): Promise<void> {
  const res = await fetch(`${origin}/__bench/mode?keys=${mode}`, { method: 'PUT' });
  if (res.status !== 204) throw new Error(`baseline refused mode ${mode}: ${res.status}`);
}

/**
 * Walks the list through the API down to page `deepPage`, keeping the last hundred cursors (the deep-page
 * scenario rotates over them, not one hot row range); kept in the bench database for later runs.
 */
async function deepCursors(sql: Sql, origin: string, auth: Record<string, string>, { deepPage, pageSize }: ReadOptions) {
  const [WALK_LIMIT, KEEP] = [100, 100];
  const depth = (deepPage - 1) * pageSize;
  await sql`create table if not exists bench_cursors (deep_page int constraint bench_cursors_pkey primary key, cursors jsonb not null)`;
  const [kept] = await sql<{ cursors: string[] }[]>`select cursors from bench_cursors where deep_page = ${deepPage}`;
  if (kept) {
    const probe = await fetch(`${origin}${BASE}/offers?limit=1&cursor=${encodeURIComponent(kept.cursors[0]!)}`, { headers: auth });
    await probe.arrayBuffer();
    if (probe.status === 200) return { cursors: kept.cursors, requests: 0, seconds: 0, depth };
  }
  const started = performance.now();
  const cursors: string[] = [];
  let [cursor, done, requests] = [null as string | null, 0, 0];
  for (; done < depth; requests++) {
    const query: string = `limit=${Math.min(WALK_LIMIT, depth - done)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await fetch(`${origin}${BASE}/offers?${query}`, { headers: auth });
    if (res.status !== 200) throw new Error(`walking the offers list failed at ${done}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { data: unknown[]; next_cursor: string | null };
    done += body.data.length;
    cursor = body.next_cursor;
    if (!cursor) throw new Error(`the list ended after ${done} offers, before page ${deepPage}`);
    cursors.push(cursor);
    if (cursors.length > KEEP) cursors.shift();
  }
  await sql`
    insert into bench_cursors (deep_page, cursors) values (${deepPage}, ${sql.json(cursors)})
    on conflict (deep_page) do update set cursors = excluded.cursors`;
  return { cursors, requests, seconds: (performance.now() - started) / 1000, depth };
}

/** An unknown key of the real key's shape: its prefix, then as many random base62 characters. */
function randomKeyLike(key: string): string {
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const prefix = key.slice(0, key.lastIndexOf('_') + 1);
  return prefix + [...randomBytes(key.length - prefix.length)].map((byte) => BASE62[byte % 62]).join('');
}

function buildScenarios(ids: string[], deepCursors: string[], key: string, options: ReadOptions): Scenario[] {
  const size = options.pageSize;
  const auth = { authorization: `Bearer ${key}` };
  const get = (path: string, headers = auth) => ({ path: `${BASE}${path}`, headers });
  const firstPage = [get(`/offers?limit=${size}`)];
  const deepPage = deepCursors.map((c) => get(`/offers?limit=${size}&cursor=${encodeURIComponent(c)}`));
  const expired = [get(`/offers?limit=${size}&status=expired`)];
  const offer = ids.map((id) => get(`/offers/${id}`));
  const events = ids.map((id) => get(`/offers/${id}/events?limit=200`));
  const storm = Array.from({ length: options.keysPerConnection * options.connections }, () => get(`/offers?limit=${size}`, { authorization: `Bearer ${randomKeyLike(key)}` }));
  // The mix: what an integration typically does - poll the first page, open offers and their
  // timelines, sometimes filter or page deeper. Interleaved deterministically.
  const mix: Scenario['requests'] = [];
  for (let i = 0; i < ids.length; i++) {
    mix.push(i % 2 === 0 ? offer[i]! : events[i]!);
    if (i % 2 === 1) mix.push(firstPage[0]!);
    if (i % 10 === 3) mix.push(expired[0]!);
    if (i % 10 === 7) mix.push(deepPage[i % deepPage.length]!);
  }
  const ok = (name: string, description: string, requests: Scenario['requests']): Scenario => ({ name, description, requests, unauthorized: false });
  return [
    ok('offers-page-1', `GET /offers?limit=${size}, first page`, firstPage),
    ok('offers-page-deep', `GET /offers?limit=${size}&cursor=..., page ${options.deepPage.toLocaleString('en')} (cursors collected beforehand)`, deepPage),
    ok('offers-expired', `GET /offers?limit=${size}&status=expired`, expired),
    ok('offer-by-id', `GET /offers/{id}, ${ids.length} ids in rotation`, offer),
    ok('offer-events', `GET /offers/{id}/events?limit=200, ${ids.length} ids in rotation`, events),
    { name: 'unauthorized-storm', description: `GET /offers with ${storm.length} random well-formed unknown keys (401)`, requests: storm, unauthorized: true },
    ok('mix', 'page 1, offers, timelines, status filter, deep pages interleaved', mix),
  ];
}

/** The baseline must give the same answers, or the comparison means nothing. */
async function checkSameAnswers(scenarios: Scenario[], serviceOrigin: string, baselineOrigin: string): Promise<void> {
  for (const scenario of scenarios) {
    if (scenario.unauthorized) continue;
    for (const request of scenario.requests.slice(0, 3)) {
      const answer = (origin: string) =>
        fetch(`${origin}${request.path}`, { headers: request.headers }).then(async (r) => `${r.status} ${await r.text()}`);
      const [a, b] = await Promise.all([answer(serviceOrigin), answer(baselineOrigin)]);
      if (a !== b) throw new Error(`baseline answers ${request.path} differently:\nservice:  ${a.slice(0, 300)}\nbaseline: ${b.slice(0, 300)}`);
    }
  }
}
