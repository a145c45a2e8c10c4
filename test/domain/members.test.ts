import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createAccount, type Role } from '../../src/domain/accounts.js';
import { listAuditEntries } from '../../src/domain/audit.js';
import { addMember, listMembers, removeMember } from '../../src/domain/members.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';
import { workspaceWithOwner } from './fixtures.js';

/** The membership rules of src/domain/members.ts, cell by cell: owner, admin, member, stranger, operator. */

let db: TestDatabase;
const clock = new ManualClock();

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function team() {
  const { workspaceId, ownerId } = await workspaceWithOwner(db.sql, clock);
  const make = async (name: string, role: Role | null) => {
    const { id } = await createAccount(db.sql, clock, { email: `${name}-${workspaceId}@a.test`, name });
    if (role) await addMember(db.sql, clock, { actorId: null, workspaceId, accountId: id, role });
    return id;
  };
  return {
    workspaceId,
    owner: ownerId,
    admin: await make('admin', 'admin'),
    member: await make('member', 'member'),
    stranger: await make('stranger', null),
    newcomer: await make('newcomer', null),
  };
}

async function roles(workspaceId: string): Promise<Record<string, string>> {
  return Object.fromEntries((await listMembers(db.sql, workspaceId)).map((m) => [m.account_id, m.role]));
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? 'thrown',
  );
}

describe('who may add a member, with which role', () => {
  // actor → [member role, admin role, owner role]
  const matrix: [string, string[]][] = [
    ['owner', ['ok', 'ok', 'ok']],
    ['admin', ['ok', 'ok', 'forbidden']],
    ['member', ['forbidden', 'forbidden', 'forbidden']],
    ['stranger', ['not_found', 'not_found', 'not_found']],
    ['operator', ['ok', 'ok', 'ok']],
  ];
  it.each(matrix)('%s', async (who, expected) => {
    const t = await team();
    const actorId = who === 'operator' ? null : t[who as 'owner' | 'admin' | 'member' | 'stranger'];
    const got: string[] = [];
    for (const role of ['member', 'admin', 'owner'] as const) {
      const { id } = await createAccount(db.sql, clock, { email: `${who}-${role}-${t.workspaceId}@a.test`, name: 'N' });
      got.push(await codeOf(addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: id, role, actorId })));
      expect((await roles(t.workspaceId))[id]).toBe(got.at(-1) === 'ok' ? role : undefined);
    }
    expect(got).toEqual(expected);
  });
});

describe('who may change and remove whom', () => {
  it('an admin can neither demote nor remove an owner, nor promote anyone to owner; an owner can', async () => {
    const t = await team();
    expect(await codeOf(addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.member, role: 'owner', actorId: t.admin }))).toBe('forbidden');
    const second = await createAccount(db.sql, clock, { email: `second-${t.workspaceId}@a.test`, name: 'Second' });
    await addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: second.id, role: 'owner', actorId: t.owner });
    expect(await codeOf(addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: second.id, role: 'member', actorId: t.admin }))).toBe('forbidden');
    expect(await codeOf(removeMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: second.id, actorId: t.admin }))).toBe('forbidden');
    expect((await roles(t.workspaceId))[second.id]).toBe('owner');
    // An admin manages admins and members.
    await addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.member, role: 'admin', actorId: t.admin });
    await removeMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.member, actorId: t.admin });
    // An owner manages owners.
    await removeMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: second.id, actorId: t.owner });
    expect(await roles(t.workspaceId)).toEqual({ [t.owner]: 'owner', [t.admin]: 'admin' });
  });

  it('a member removes nobody; a stranger gets not found; removing a non-member is not found', async () => {
    const t = await team();
    expect(await codeOf(removeMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.admin, actorId: t.member }))).toBe('forbidden');
    expect(await codeOf(removeMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.member, actorId: t.stranger }))).toBe('not_found');
    expect(await codeOf(removeMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.newcomer, actorId: t.owner }))).toBe('not_found');
    expect(Object.keys(await roles(t.workspaceId))).toHaveLength(3);
  });

  it('the last owner can be neither removed nor demoted, not even by the operator or by themselves', async () => {
    const t = await team();
    for (const actorId of [t.owner, null]) {
      await expect(removeMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.owner, actorId })).rejects.toMatchObject({
        code: 'invalid_input',
        message: `account ${t.owner} is the last owner of workspace ${t.workspaceId}`,
      });
      await expect(addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.owner, role: 'admin', actorId })).rejects.toMatchObject({
        code: 'invalid_input',
      });
    }
    expect((await roles(t.workspaceId))[t.owner]).toBe('owner');
    // With a second owner the first may step down.
    await addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.admin, role: 'owner', actorId: t.owner });
    await addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.owner, role: 'member', actorId: t.owner });
    expect((await roles(t.workspaceId))[t.owner]).toBe('member');
  });
});

describe('audit entries of member changes', () => {
  it('records added, role changed and removed with the actor, the operator as no account with the CLI label, and nothing for a refusal', async () => {
    const t = await team();
    const before = (await listAuditEntries(db.sql, { workspaceId: t.workspaceId, limit: 100, after: null })).length;
    clock.advance(1000);
    await addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.newcomer, role: 'member', actorId: t.admin, via: { label: 'console', ip: '203.0.113.7' } });
    clock.advance(1000);
    await addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.newcomer, role: 'admin', actorId: t.owner });
    clock.advance(1000);
    await addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.newcomer, role: 'admin', actorId: t.owner }); // no change, no entry
    await codeOf(addMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.newcomer, role: 'owner', actorId: t.admin })); // refused
    clock.advance(1000);
    await removeMember(db.sql, clock, { workspaceId: t.workspaceId, accountId: t.newcomer, actorId: null });

    const entries = (await listAuditEntries(db.sql, { workspaceId: t.workspaceId, limit: 100, after: null })).slice(0, -before || undefined);
    expect(entries.map((e) => [e.action, e.actor_id, e.actor_label, e.target_type, e.target_id, e.details, e.ip])).toEqual([
      ['member.removed', null, 'operator (CLI)', 'account', t.newcomer, { previous_role: 'admin' }, null],
      ['member.role_changed', t.owner, 'operator (CLI)', 'account', t.newcomer, { role: 'admin', previous_role: 'member' }, null],
      ['member.added', t.admin, 'console', 'account', t.newcomer, { role: 'member' }, '203.0.113.7'],
    ]);
  });
});
