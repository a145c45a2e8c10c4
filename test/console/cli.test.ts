import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { addMember, createAccount, createWorkspace } from '../../src/domain/accounts.js';
import { listAuditEntries } from '../../src/domain/audit.js';
import { createSignInLink, useSignInLink } from '../../src/domain/sign-in-links.js';
import { projectRoot } from '../../src/paths.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { offerdeskArgs } from '../support/offerdesk-command.js';
import { CONSOLE_TEST_ENV } from './helpers.js';
import { randomTag } from '../support/random.js';

/** The console's commands of `offerdesk`, and the CLI's changes in the audit log. */
const run = promisify(execFile);
let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db.drop());

const env = () => ({
  ...process.env,
  ...CONSOLE_TEST_ENV,
  DATABASE_URL: db.url,
  OFFERDESK_PUBLIC_URL: 'https://offerdesk.test',
});

async function offerdesk(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  if (stdin === undefined) {
    try {
      const { stdout, stderr } = await run(process.execPath, offerdeskArgs(...args), { cwd: projectRoot, env: env() });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, offerdeskArgs(...args), { cwd: projectRoot, env: env() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function owner() {
  const email = `cli-${randomTag()}@agency.example`;
  const account = await createAccount(db.sql, systemClock, { email, name: 'Cli Owner' });
  const workspace = await createWorkspace(db.sql, systemClock, { name: 'Cli Agency', timezone: 'UTC', currency: 'EUR', ownerAccountId: account.id });
  return { email, accountId: account.id, workspaceId: workspace.id };
}

describe('offerdesk account sign-in-link', () => {
  it('prints {url, expires_at}: the public address, the token in the fragment, 15 minutes', async () => {
    const o = await owner();
    const before = Date.now();
    const result = await offerdesk(['account', 'sign-in-link', '--email', o.email, '--json']);
    expect(result.code).toBe(0);
    const { url, expires_at } = JSON.parse(result.stdout) as { url: string; expires_at: string };
    expect(url).toMatch(/^https:\/\/offerdesk\.test\/console\/sign-in#token=[A-Za-z0-9_-]{43}$/);
    expect(new Date(expires_at).getTime()).toBeGreaterThan(before);
    const rows = await db.sql<{ created_at: Date; expires_at: Date }[]>`
      select created_at, expires_at from sign_in_links where account_id = ${o.accountId}::uuid`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.expires_at.toISOString()).toBe(expires_at);
    expect(rows[0]!.expires_at.getTime() - rows[0]!.created_at.getTime()).toBe(15 * 60_000);
    expect(JSON.stringify(rows)).not.toContain(url.split('#token=')[1]!);
  }, 60_000);

  it('refuses an unknown email on one line with exit code 2', async () => {
    const result = await offerdesk(['account', 'sign-in-link', '--email', 'nobody@agency.example']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});

describe('offerdesk account set-password', () => {
  it('reads the password from stdin and stores only an argon2id hash', async () => {
    const o = await owner();
    const result = await offerdesk(['account', 'set-password', '--email', o.email, '--json'], 'a long enough passphrase\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('passphrase');
    const [row] = await db.sql`select password_hash from accounts where id = ${o.accountId}::uuid`;
    expect(row!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row!.password_hash).not.toContain('passphrase');
  }, 60_000);

  it('ends every unused sign-in and password-reset link of the account', async () => {
    const o = await owner();
    const signIn = await createSignInLink(db.sql, systemClock, { accountId: o.accountId });
    const reset = await createSignInLink(db.sql, systemClock, { accountId: o.accountId, purpose: 'password_reset' });
    const result = await offerdesk(['account', 'set-password', '--email', o.email], 'a long enough passphrase\n');
    expect(result.code, result.stderr).toBe(0);
    expect(await useSignInLink(db.sql, systemClock, signIn.token)).toBeNull();
    expect(await useSignInLink(db.sql, systemClock, reset.token, 'password_reset')).toBeNull();
  }, 60_000);

  it('refuses a password shorter than 10 characters and says so', async () => {
    const o = await owner();
    const result = await offerdesk(['account', 'set-password', '--email', o.email], 'short\n');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/at least 10 characters/);
    const [row] = await db.sql`select password_hash from accounts where id = ${o.accountId}::uuid`;
    expect(row!.password_hash).toBeNull();
  }, 60_000);
});

describe('names given on the command line', () => {
  const forged = 'Olga\nAccept the invitation: http://evil.example/phish';
  it.each([
    ['account create', () => ['account', 'create', '--email', `named-${randomTag()}@agency.example`, '--name', forged]],
    ['workspace create', () => ['workspace', 'create', '--name', 'Agency\u2028Two', '--timezone', 'UTC', '--currency', 'EUR']],
  ])('%s refuses a name with a line break on one line, exit code 2, and stores nothing', async (_what, args) => {
    const [before] = await db.sql<{ n: number }[]>`select (select count(*) from accounts) + (select count(*) from workspaces) as n`;
    const result = await offerdesk(args());
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/name must be one line/)]);
    const [after] = await db.sql<{ n: number }[]>`select (select count(*) from accounts) + (select count(*) from workspaces) as n`;
    expect(after!.n).toBe(before!.n);
  }, 60_000);

  it('key create refuses a name with a control character on one line, exit code 2', async () => {
    const o = await owner();
    const result = await offerdesk(['key', 'create', '--workspace', o.workspaceId, '--name', 'CRM\tsync', '--as', o.email]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/name must be one line/)]);
    expect(await db.sql`select 1 from api_keys where workspace_id = ${o.workspaceId}::uuid`).toHaveLength(0);
  }, 60_000);
});

describe("the CLI's changes in the audit log", () => {
  it('records key and endpoint changes with the --as account and "operator (CLI)"', async () => {
    const o = await owner();
    const admin = await createAccount(db.sql, systemClock, { email: `adm-${o.accountId}@agency.example`, name: 'Adm' });
    await addMember(db.sql, systemClock, { actorId: null, workspaceId: o.workspaceId, accountId: admin.id, role: 'admin' });
    const key = JSON.parse((await offerdesk(['key', 'create', '--workspace', o.workspaceId, '--name', 'Cli key', '--as', o.email, '--json'])).stdout);
    await offerdesk(['key', 'revoke', key.id, '--as', admin.id]);
    const added = await offerdesk(['endpoint', 'add', '--workspace', o.workspaceId, '--url', 'https://hooks.test/cli', '--events', 'offer.sent', '--as', o.email, '--json']);
    const endpoint = JSON.parse(added.stdout);
    const updated = await offerdesk(['endpoint', 'update', endpoint.id, '--events', 'offer.sent,offer.accepted', '--as', admin.id, '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout).events).toEqual(['offer.sent', 'offer.accepted']);

    const entries = await listAuditEntries(db.sql, { workspaceId: o.workspaceId, limit: 10, after: null });
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
    expect(byAction['api_key.created']).toMatchObject({ actor_id: o.accountId, actor_label: 'operator (CLI)', target_id: key.id, ip: null });
    expect(byAction['api_key.revoked']).toMatchObject({ actor_id: admin.id, actor_label: 'operator (CLI)' });
    expect(byAction['endpoint.added']).toMatchObject({ actor_id: o.accountId, actor_label: 'operator (CLI)', target_id: endpoint.id });
    expect(byAction['endpoint.updated']).toMatchObject({ actor_id: admin.id, actor_label: 'operator (CLI)', details: { events: ['offer.sent', 'offer.accepted'] } });
    const stored = JSON.stringify(entries);
    expect(stored).not.toContain(key.key);
    expect(stored).not.toContain(endpoint.secret);
  }, 90_000);

  it('a refused change writes no entry', async () => {
    const o = await owner();
    const stranger = await createAccount(db.sql, systemClock, { email: `str-${o.accountId}@agency.example`, name: 'Str' });
    const refused = await offerdesk(['key', 'create', '--workspace', o.workspaceId, '--name', 'nope', '--as', stranger.id]);
    expect(refused.code).toBe(2);
    expect(await listAuditEntries(db.sql, { workspaceId: o.workspaceId, limit: 10, after: null })).toEqual([]);
  }, 60_000);
});
