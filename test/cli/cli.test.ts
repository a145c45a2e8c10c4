import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { offerdeskArgs } from '../support/offerdesk-command.js';

/** The real CLI in its own process, against a fresh database. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let db: TestDatabase;

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      offerdeskArgs(...args),
      { env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Exactly one JSON object on stdout, exit 0, nothing on stderr (progress lines allowed where a command prints them). */
async function json(args: string[], progress = false): Promise<Record<string, unknown>> {
  const run = await cli([...args, '--json']);
  expect(run, run.stderr).toMatchObject({ code: 0 });
  if (!progress) expect(run.stderr).toBe('');
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

async function rowCounts(): Promise<Record<string, number>> {
  const [row] = await db.sql<Record<string, number>[]>`
    select (select count(*)::int from accounts) as accounts, (select count(*)::int from workspaces) as workspaces,
           (select count(*)::int from memberships) as memberships, (select count(*)::int from api_keys) as api_keys,
           (select count(*)::int from offers) as offers, (select count(*)::int from offer_events) as events,
           (select count(*)::int from webhook_outbox) as outbox`;
  return row!;
}

let workspaceId: string;
let draftId: string;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('happy path with --json', () => {
  it('creates an account, a workspace, a key and an offer, sends it, views it and accepts it', async () => {
    const owner = await json(['account', 'create', '--email', 'owner@agency.test', '--name', 'Olivia Owner']);
    await json(['account', 'create', '--email', 'member@agency.test', '--name', 'Max Member']);
    const workspace = await json([
      'workspace', 'create', '--name', 'Agency', '--timezone', 'Europe/Berlin', '--currency', 'EUR', '--owner', 'owner@agency.test',
    ]);
    workspaceId = workspace.id as string;
    await json(['member', 'add', '--workspace', workspaceId, '--account', 'member@agency.test', '--role', 'member', '--as', 'owner@agency.test']);
    const key = await json(['key', 'create', '--workspace', workspaceId, '--name', 'CRM sync', '--as', owner.id as string]);
    expect(key.key).toMatch(/^odk_live_[0-9A-Za-z]{32,}$/);
    const list = await json(['key', 'list', '--workspace', workspaceId, '--as', 'member@agency.test']);
    expect(JSON.stringify(list)).not.toContain(key.key as string);

    const pricing = join(tmpdir(), `pricing-${process.pid}.json`);
    writeFileSync(pricing, JSON.stringify([{ id: 'pricing', kind: 'pricing', packages: [{ name: 'Pro', amount: 420_000 }] }]));
    const offer = await json(['offer', 'create', '--workspace', workspaceId, '--title', 'Website', '--pricing', pricing, '--at', '2026-01-01T09:00:00Z']);
    const id = offer.id as string;
    expect(await json(['offer', 'send', id, '--recipient-email', 'rita@client.test', '--expires-at', '2099-01-01', '--at', '2026-01-02T09:00:00+01:00']))
      .toEqual({ id, status: 'sent', version: 1, sequence: 2 });
    await json(['offer', 'view', id, '--section', 'pricing', '--duration-ms', '1200']);
    expect(await json(['offer', 'accept', id, '--signer-name', 'Rita', '--signer-email', 'rita@client.test']))
      .toEqual({ id, status: 'accepted', version: 1, sequence: 4 });

    const [row] = await db.sql`select status, value_amount, sent_at from offers where id = ${id}::uuid`;
    expect(row).toEqual({ status: 'accepted', value_amount: 420_000, sent_at: new Date('2026-01-02T08:00:00.000Z') });
    const outbox = await db.sql`select type from webhook_outbox where offer_id = ${id}::uuid order by offer_sequence`;
    expect(outbox.map((r) => r.type)).toEqual(['offer.sent', 'offer.accepted']);

    draftId = (await json(['offer', 'create', '--workspace', workspaceId, '--title', 'Draft'])).id as string;
  }, 300_000);

  it('seeds offers and reports the count, the entries and the seed', async () => {
    const result = await json(['seed', '--workspace', workspaceId, '--offers', '300', '--random-seed', '5'], true);
    expect(result).toMatchObject({ workspace_id: workspaceId, offers: 300, random_seed: 5 });
    expect(result.events).toBeGreaterThan(300);
  }, 60_000);
});

describe('bad input: exit code 2, one line on stderr, nothing on stdout, nothing written', () => {
  const UNKNOWN = '00000000-0000-4000-8000-000000000000';
  const cases: [string, () => string[]][] = [
    ['an unknown workspace', () => ['offer', 'create', '--workspace', UNKNOWN, '--title', 'T', '--json']],
    ['a bad email', () => ['account', 'create', '--email', 'not-an-email', '--name', 'X', '--json']],
    ['an impossible ISO date', () => ['offer', 'send', draftId, '--recipient-email', 'r@c.test', '--expires-at', '2026-02-30', '--json']],
    ['a time without a zone', () => ['offer', 'withdraw', draftId, '--at', '2026-01-01T10:00:00']],
    ['a member creating a key', () => ['key', 'create', '--workspace', workspaceId, '--name', 'k', '--as', 'member@agency.test', '--json']],
    ['an unknown acting account', () => ['key', 'create', '--workspace', workspaceId, '--name', 'k', '--as', 'ghost@agency.test']],
    ['a wrong role name', () => ['member', 'add', '--workspace', workspaceId, '--account', 'member@agency.test', '--role', 'boss', '--operator']],
    ['an invalid transition', () => ['offer', 'withdraw', draftId, '--json']],
    ['a missing required option', () => ['account', 'create', '--name', 'X']],
    ['an unknown option', () => ['account', 'create', '--email', 'a@b.test', '--name', 'X', '--colour', 'red']],
    ['an unknown command', () => ['acount', 'create']],
    ['an unknown currency', () => ['workspace', 'create', '--name', 'W', '--timezone', 'UTC', '--currency', 'EUX']],
    ['an unknown time zone', () => ['workspace', 'create', '--name', 'W', '--timezone', 'Mars/Olympus', '--currency', 'EUR']],
    ['a missing pricing file', () => ['offer', 'create', '--workspace', workspaceId, '--title', 'T', '--pricing', '/nonexistent/p.json']],
  ];

  it.each(cases)('%s', async (_name, args) => {
    const before = await rowCounts();
    const run = await cli(args());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^offerdesk: [^\n]+\n$/);
    expect(run.stderr).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(await rowCounts()).toEqual(before);
  }, 60_000);
});

it('an unreachable database is an unexpected failure: exit code 1 and one line', async () => {
  const run = await cli(['account', 'create', '--email', 'a@b.test', '--name', 'X'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^offerdesk: [^\n]+\n$/);
}, 60_000);

it('--help exits 0', async () => {
  const run = await cli(['offer', '--help']);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('withdraw');
}, 60_000);
