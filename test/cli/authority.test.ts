import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createAccount, createWorkspace } from '../../src/domain/accounts.js';
import { listAuditEntries } from '../../src/domain/audit.js';
import { addMember } from '../../src/domain/members.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { cliRunner } from './runner.js';

/**
 * The CLI is the operator's tool (README): every command on a workspace's members, keys, endpoints
 * or deliveries acts `--as` an account, with the console's role rules, or as `--operator`, recorded
 * so in the audit log. Run as a real process against a fresh database.
 */

const MASTER_KEY = randomBytes(32).toString('base64');
let db: TestDatabase;
let ws: string;
let endpointId: string;
let deliveryId: string;
const who = { owner: 'owner@cli-auth.test', admin: 'admin@cli-auth.test', member: 'member@cli-auth.test', stranger: 'stranger@cli-auth.test' };
const ids: Record<string, string> = {};

const { cli, json } = cliRunner(() => ({
  DATABASE_URL: db.url,
  LOG_LEVEL: 'silent',
  OFFERDESK_MASTER_KEY: MASTER_KEY,
  OFFERDESK_WEBHOOK_DEV_RESOLVE: 'receiver.cli-auth.io=127.0.0.1:9',
}));

/** The operator's audit entries: no account, the label the console shows for the CLI. */
async function lastEntry(action: string) {
  const entries = await listAuditEntries(db.sql, { workspaceId: ws, limit: 100, after: null });
  return entries.find((e) => e.action === action);
}

beforeAll(async () => {
  db = await freshDatabase();
  for (const [role, email] of Object.entries(who)) ids[role] = (await createAccount(db.sql, systemClock, { email, name: role })).id;
  ws = (await createWorkspace(db.sql, systemClock, { name: 'Agency', timezone: 'UTC', currency: 'EUR', ownerAccountId: ids.owner })).id;
  await addMember(db.sql, systemClock, { actorId: null, workspaceId: ws, accountId: ids.admin!, role: 'admin' });
  await addMember(db.sql, systemClock, { actorId: null, workspaceId: ws, accountId: ids.member!, role: 'member' });
  // A stranger owns a workspace of its own: being someone elsewhere gives nothing here.
  await createWorkspace(db.sql, systemClock, { name: 'Elsewhere', timezone: 'UTC', currency: 'EUR', ownerAccountId: ids.stranger });
}, 60_000);
afterAll(async () => {
  await db.drop();
});

describe('exactly one of --as and --operator', () => {
  it.each([
    ['neither', ['key', 'list', '--workspace', '00000000-0000-4000-8000-000000000000']],
    ['both', ['member', 'add', '--workspace', '00000000-0000-4000-8000-000000000000', '--account', 'x@y.test', '--role', 'member', '--as', 'x@y.test', '--operator']],
    ['neither, on a change', ['endpoint', 'remove', '00000000-0000-4000-8000-000000000000']],
    ['neither, on the delivery log', ['delivery', 'list', '--endpoint', '00000000-0000-4000-8000-000000000000']],
  ])('%s: one line, exit 2', async (_name, args) => {
    const run = await cli(...args);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'offerdesk: give exactly one of --as <account> (act as that account, with its role) or --operator (act as the operator)\n',
    });
  }, 60_000);
});

describe('the operator acts with no account and is recorded as "operator (CLI)"', () => {
  it('adds an endpoint, sends a test and creates a key', async () => {
    const added = await json<{ id: string }>('endpoint', 'add', '--workspace', ws, '--url', 'https://receiver.cli-auth.io/in', '--events', 'offer.sent', '--operator');
    endpointId = added.id;
    deliveryId = (await json<{ delivery_id: string }>('endpoint', 'test', endpointId, '--operator')).delivery_id;
    const key = await json<{ id: string }>('key', 'create', '--workspace', ws, '--name', 'Ops', '--operator');
    for (const [action, target] of [['endpoint.added', endpointId], ['endpoint.tested', endpointId], ['api_key.created', key.id]] as const) {
      expect(await lastEntry(action)).toMatchObject({ actor_id: null, actor_email: null, actor_label: 'operator (CLI)', target_id: target });
    }
    const [row] = await db.sql`select created_by from webhook_endpoints where id = ${endpointId}::uuid`;
    expect(row!.created_by).toBeNull();
  }, 120_000);
});

describe('reads: any member and the operator; anyone else is told "not found" like an unknown ID', () => {
  const UNKNOWN = '00000000-0000-4000-8000-000000000000';
  const reads: [string, () => string[], () => string][] = [
    ['key list', () => ['key', 'list', '--workspace', ws], () => `workspace ${ws}`],
    ['member list', () => ['member', 'list', '--workspace', ws], () => `workspace ${ws}`],
    ['endpoint list', () => ['endpoint', 'list', '--workspace', ws], () => `workspace ${ws}`],
    ['endpoint show', () => ['endpoint', 'show', endpointId], () => `endpoint ${endpointId}`],
    ['delivery list', () => ['delivery', 'list', '--endpoint', endpointId], () => `endpoint ${endpointId}`],
    ['delivery show', () => ['delivery', 'show', deliveryId], () => `delivery ${deliveryId}`],
  ];
  it.each(reads)('%s', async (_name, args, what) => {
    const cells = await Promise.all(
      [['--as', who.owner], ['--as', who.admin], ['--as', who.member], ['--operator'], ['--as', who.stranger]].map((actor) => cli(...args(), ...actor)),
    );
    for (const ok of cells.slice(0, 4)) expect(ok, ok.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(cells[0]!.stdout).toBe(cells[3]!.stdout);
    expect(cells[4]).toEqual({ code: 2, stdout: '', stderr: `offerdesk: ${what()} not found\n` });
    // The same words as an ID that does not exist.
    const unknown = await cli(...args().map((a) => (a === ws || a === endpointId || a === deliveryId ? UNKNOWN : a)), '--operator');
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: `offerdesk: ${what().replace(/[0-9a-f-]{36}/, UNKNOWN)} not found\n` });
  }, 120_000);
});

describe('endpoint update and pause write their audit entries', () => {
  it('an admin updates, the operator pauses; a member is refused and writes nothing', async () => {
    const added = await json<{ id: string }>('endpoint', 'add', '--workspace', ws, '--url', 'https://receiver.cli-auth.io/two', '--events', 'offer.sent', '--as', who.owner);
    const refused = await cli('endpoint', 'pause', added.id, '--as', who.member);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(await lastEntry('endpoint.paused')).toBeUndefined();
    await json('endpoint', 'update', added.id, '--events', 'offer.accepted', '--as', who.admin);
    await json('endpoint', 'pause', added.id, '--operator');
    expect(await lastEntry('endpoint.updated')).toMatchObject({ actor_id: ids.admin, target_id: added.id, details: { events: ['offer.accepted'] } });
    expect(await lastEntry('endpoint.paused')).toMatchObject({ actor_id: null, actor_label: 'operator (CLI)', target_id: added.id });
  }, 120_000);
});

describe('member commands: the console rules, through the shared domain function', () => {
  it('add: owners add any role, admins not owners, members nothing, strangers are told not found; each change audited', async () => {
    const extra = async (tag: string) => {
      await createAccount(db.sql, systemClock, { email: `${tag}@cli-auth.test`, name: tag });
      return `${tag}@cli-auth.test`;
    };
    const add = async (actor: string[], role: string, account: string) => cli('member', 'add', '--workspace', ws, '--account', account, '--role', role, ...actor);
    const cells = await Promise.all([
      add(['--as', who.owner], 'owner', await extra('new-owner')),
      add(['--as', who.admin], 'admin', await extra('new-admin')),
      add(['--as', who.admin], 'owner', await extra('not-owner')),
      add(['--as', who.member], 'member', await extra('not-member')),
      add(['--as', who.stranger], 'member', await extra('not-stranger')),
      add(['--operator'], 'member', await extra('by-operator')),
    ]);
    expect(cells.map((c) => c.code)).toEqual([0, 0, 2, 2, 2, 0]);
    expect(cells[2]!.stderr).toBe(`offerdesk: an admin cannot make an owner or change an owner's role; ask an owner of workspace ${ws}\n`);
    expect(cells[3]!.stderr).toMatch(/^offerdesk: account [0-9a-f-]+ is member of workspace [0-9a-f-]+; this needs owner or admin\n$/);
    expect(cells[4]!.stderr).toBe(`offerdesk: workspace ${ws} not found\n`);
    const members = await json<{ data: { email: string; role: string }[] }>('member', 'list', '--workspace', ws, '--operator');
    expect(members.data.map((m) => `${m.email}:${m.role}`)).toEqual(
      expect.arrayContaining(['new-owner@cli-auth.test:owner', 'new-admin@cli-auth.test:admin', 'by-operator@cli-auth.test:member']),
    );
    expect(members.data.map((m) => m.email)).not.toEqual(expect.arrayContaining(['not-owner@cli-auth.test']));
    expect(members.data.map((m) => m.email)).not.toEqual(expect.arrayContaining(['not-member@cli-auth.test']));
    expect(members.data.map((m) => m.email)).not.toEqual(expect.arrayContaining(['not-stranger@cli-auth.test']));

    const entries = await listAuditEntries(db.sql, { workspaceId: ws, limit: 100, after: null });
    const added = entries.filter((e) => e.action === 'member.added').map((e) => [e.actor_id, e.actor_label, e.details]);
    expect(added).toEqual(
      expect.arrayContaining([
        [ids.owner, 'operator (CLI)', { role: 'owner' }],
        [ids.admin, 'operator (CLI)', { role: 'admin' }],
        [null, 'operator (CLI)', { role: 'member' }],
      ]),
    );
  }, 180_000);

  it('remove: the last owner stays, even for the operator; an owner removes a member, audited', async () => {
    const { id: solo } = await createWorkspace(db.sql, systemClock, { name: 'Solo', timezone: 'UTC', currency: 'EUR', ownerAccountId: ids.owner });
    await addMember(db.sql, systemClock, { actorId: null, workspaceId: solo, accountId: ids.member!, role: 'member' });
    const [byOperator, demote, removed] = await Promise.all([
      cli('member', 'remove', '--workspace', solo, '--account', who.owner, '--operator'),
      cli('member', 'add', '--workspace', solo, '--account', who.owner, '--role', 'admin', '--as', who.owner),
      cli('member', 'remove', '--workspace', solo, '--account', who.member, '--as', who.owner),
    ]);
    expect(byOperator).toEqual({ code: 2, stdout: '', stderr: `offerdesk: account ${ids.owner} is the last owner of workspace ${solo}\n` });
    expect(demote).toEqual({ code: 2, stdout: '', stderr: `offerdesk: account ${ids.owner} is the last owner of workspace ${solo}\n` });
    expect(removed, removed.stderr).toMatchObject({ code: 0, stdout: `account ${ids.member} (member) removed from workspace ${solo}\n` });
    const rows = await db.sql`select account_id, role from memberships where workspace_id = ${solo}::uuid`;
    expect(rows).toEqual([{ account_id: ids.owner, role: 'owner' }]);
    const [entry] = await listAuditEntries(db.sql, { workspaceId: solo, limit: 1, after: null });
    expect(entry).toMatchObject({ action: 'member.removed', actor_id: ids.owner, actor_label: 'operator (CLI)', target_id: ids.member });
  }, 120_000);
});
