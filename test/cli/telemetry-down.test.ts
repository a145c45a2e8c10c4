import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { cliRunner } from './runner.js';

/**
 * Tracing must never change a command's result (docs/operations.md "Tracing"): with the collector
 * down or silent, a command that did its work prints its output and exits 0 within a few seconds,
 * with at most one warning line on stderr, so a `set -e` script goes on.
 */

let db: TestDatabase;
let silent: Server;
const held = new Set<Socket>();
let accepted = 0;
let closedPort: number;
let collectorUrl = '';

const { cli } = cliRunner(() => ({
  DATABASE_URL: db.url,
  LOG_LEVEL: 'silent',
  OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
  OTEL_TRACES_SAMPLER: 'always_on',
}));

beforeAll(async () => {
  db = await freshDatabase();
  // A port nothing listens on: bound, read and closed again.
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  // A collector that accepts every connection and never answers.
  silent = createServer((socket) => {
    accepted += 1;
    held.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => held.delete(socket));
  });
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await db?.drop();
});

async function createAccountTimed(email: string) {
  const started = Date.now();
  const run = await cli('account', 'create', '--email', email, '--name', 'Trace Less', '--json');
  return { run, ms: Date.now() - started };
}

function expectDoneDespiteCollector(result: Awaited<ReturnType<typeof createAccountTimed>>): void {
  const { run, ms } = result;
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ id: expect.any(String) });
  const warnings = run.stderr.split('\n').filter((line) => line !== '');
  expect(warnings.length).toBeLessThanOrEqual(1);
  for (const line of warnings) expect(line).toMatch(/^offerdesk: warning: traces not exported/);
  // A process start and the command take about a second; the export is cut off at 2 s.
  expect(ms).toBeLessThan(5000);
}

describe('a CLI command with the trace collector unreachable', () => {
  it('prints its result and exits 0 within seconds when the collector port is closed', async () => {
    collectorUrl = `http://127.0.0.1:${closedPort}`;
    const result = await createAccountTimed('closed-collector@agency.test');
    expectDoneDespiteCollector(result);
    const [row] = await db.sql`select count(*)::int as n from accounts where email = 'closed-collector@agency.test'`;
    expect(row!.n).toBe(1);
  });

  it('prints its result and exits 0 within seconds when the collector accepts and never answers', async () => {
    collectorUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const result = await createAccountTimed('silent-collector@agency.test');
    expectDoneDespiteCollector(result);
    // The spans did go out to it: the silence, not a refusal, is what the command outlived.
    expect(accepted).toBeGreaterThan(0);
  });
});
