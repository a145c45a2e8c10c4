import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.js';
import { freePort, startStack, type Stack } from './stack.js';

/**
 * The ops kit against a real Prometheus (Debian's `prometheus`): it scrapes a real `serve`, a
 * separate `worker` and, through them, an HTTPS receiver that fails a third of the time, with
 * deploy/prometheus/rules.yml loaded; every expression of every panel of
 * deploy/grafana/offerdesk-dashboard.json must return data. CI (CI=true) or
 * OFFERDESK_REQUIRE_PROMETHEUS=1 makes a missing Prometheus fail the test instead of skipping it.
 */

const DASHBOARD = join(projectRoot, 'deploy/grafana/offerdesk-dashboard.json');
const RULES = join(projectRoot, 'deploy/prometheus/rules.yml');
/** Every expression must have data within this, from the first traffic (1 s scrapes and rule runs). */
const DATA_DEADLINE_MS = 90_000;

const required = process.env.CI === 'true' || process.env.OFFERDESK_REQUIRE_PROMETHEUS === '1';
const binary = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'prometheus'))
  .find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

interface PanelTarget {
  panel: string;
  expr: string;
}

function dashboardTargets(): PanelTarget[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: { type: string; title: string; targets?: { expr: string }[] }[];
  };
  return dashboard.panels
    .filter((panel) => panel.type !== 'row')
    .flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
}

let stack: Stack;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let dataDir: string | undefined;

async function query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await response.json()) as { status: string; error?: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  if (body.status !== 'success') throw new Error(`query ${expr} failed: ${body.error}`);
  return body.data!.result;
}

describe.runIf(binary !== undefined || required)('the dashboard and rules against a real Prometheus', () => {
  beforeAll(async () => {
    if (!binary) throw new Error("no prometheus binary on PATH: install Debian's prometheus package (apt-get install -y prometheus)");
    stack = await startStack({ rateLimitPerKey: 3 });
    dataDir = mkdtempSync(join(tmpdir(), 'offerdesk-prometheus-'));
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    const config = join(dataDir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${JSON.stringify(RULES)}`,
        'scrape_configs:',
        '  - job_name: offerdesk-api',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${stack.serverMetricsPort}']`,
        '  - job_name: offerdesk-worker',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${stack.workerMetricsPort}']`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      binary,
      [`--config.file=${config}`, `--storage.tsdb.path=${join(dataDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prometheus.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ready = await fetch(`${prometheusUrl}/-/ready`).then((r) => r.ok, () => false);
      if (ready) break;
      if (Date.now() > deadline || prometheus.exitCode !== null) throw new Error(`Prometheus did not start:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 120_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await stack?.stop();
  });

  it('loads the rules without errors and scrapes both processes', async () => {
    const rules = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
    };
    const all = rules.data.groups.flatMap((group) => group.rules);
    expect(all.length).toBeGreaterThan(20);
    await waitFor(async () => (await query('up{job=~"offerdesk.*"} == 1')).length === 2, 'both targets up');
    const unhealthy = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as typeof rules;
    expect(unhealthy.data.groups.flatMap((g) => g.rules).filter((r) => r.health === 'err')).toEqual([]);
  }, 60_000);

  it("returns data for every panel's expression after a real run", async () => {
    // A receiver that fails a third of the time, events, API calls (one refused at the key's limit), probes.
    stack.receiver.reply((_, index) => (index % 3 === 2 ? { status: 500, body: 'no' } : { status: 200, body: 'ok' }));
    await stack.sendOffers(6);
    for (let i = 0; i < 4; i++) await fetch(`${stack.apiOrigin}/api/v1/workspace`, { headers: { authorization: `Bearer ${stack.ws.key}` } });
    // A live service has traffic all the time: a rate needs a series to grow between two scrapes,
    // and a route's first request only creates its series. So the API is asked again each round.
    const apiTraffic = async () => {
      await fetch(`${stack.apiOrigin}/api/v1/offers?limit=5`, { headers: { authorization: `Bearer ${stack.spareKey}` } });
      await fetch(`${stack.apiOrigin}/readyz`);
      await fetch(`${stack.apiOrigin}/healthz`);
    };
    await apiTraffic();

    const targets = dashboardTargets();
    expect(targets.length).toBeGreaterThanOrEqual(17);
    const missing = new Set(targets.map((t) => `${t.panel}: ${t.expr}`));
    const deadline = Date.now() + DATA_DEADLINE_MS;
    while (missing.size > 0 && Date.now() < deadline) {
      for (const target of targets) {
        const key = `${target.panel}: ${target.expr}`;
        if (!missing.has(key)) continue;
        const result = await query(target.expr);
        // Data: at least one series with a real number (a ratio of nothing is NaN, not data).
        if (result.some((series) => Number.isFinite(Number(series.value[1])))) missing.delete(key);
      }
      if (missing.size > 0) {
        await apiTraffic();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
    expect([...missing]).toEqual([]);

    // The numbers are the run's: Prometheus's attempt counts are the delivery log's (2 of the
    // first 6 answered 500; their retries a minute later may have come since).
    const fromLog = async () => {
      const [row] = await stack.db.sql<{ ok: number; failed: number }[]>`
        select count(*) filter (where succeeded)::int as ok, count(*) filter (where not succeeded)::int as failed from webhook_attempts`;
      return row!;
    };
    await waitFor(async () => {
      const outcomes = await query('sum by (outcome) (offerdesk_webhook_attempts_total{job="offerdesk-worker"})');
      const byOutcome = Object.fromEntries(outcomes.map((s) => [s.metric.outcome, Number(s.value[1])]));
      const log = await fromLog();
      return byOutcome.success === log.ok && byOutcome.http_error === log.failed && log.ok >= 4 && log.failed >= 2;
    }, "Prometheus's attempt counts to equal the delivery log's");
  }, 150_000);
});

async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
