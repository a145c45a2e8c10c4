import { describe, expect, it } from 'vitest';
import { addMember } from '../../src/domain/accounts.js';
import { consoleWorld, person, useConsoleApi, type ConsoleWorld } from './helpers.js';

/**
 * The Members page's API (console-api.yaml tag "Members"): list, change a role, remove, by the
 * rules of domain/members.ts, audited.
 */
const ctx = useConsoleApi();

const membersPath = (w: ConsoleWorld) => `/workspaces/${w.workspaceId}/members`;

async function auditActions(w: ConsoleWorld): Promise<{ action: string; target: string | null; details: Record<string, unknown> }[]> {
  return ctx.api.db.sql`
    select action, target_id as target, details from audit_entries
     where workspace_id = ${w.workspaceId}::uuid and action like 'member.%' order by created_at, id`;
}

describe('the list of members', () => {
  it('shows every member with their role, owners first, to any member; 404 to others', async () => {
    const w = await consoleWorld(ctx.api);
    const answer = await w.member.client.call('GET', membersPath(w));
    expect(answer.status).toBe(200);
    expect(answer.body.next_cursor).toBeNull();
    expect(answer.body.data.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [w.owner.email, 'owner'],
      [w.admin.email, 'admin'],
      [w.member.email, 'member'],
    ]);
    expect((await w.outsider.client.call('GET', membersPath(w))).status).toBe(404);
    expect((await w.anonymous.call('GET', membersPath(w))).status).toBe(401);
  });
});

describe('changing a role', () => {
  it('an owner promotes a member to admin, audited with the previous role', async () => {
    const w = await consoleWorld(ctx.api);
    const answer = await w.owner.client.call('PATCH', `${membersPath(w)}/${w.member.id}`, { body: { role: 'admin' } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ id: w.member.id, email: w.member.email, name: expect.any(String), role: 'admin' });
    expect(await auditActions(w)).toContainEqual({ action: 'member.role_changed', target: w.member.id, details: { role: 'admin', previous_role: 'member' } });
  });

  it('an admin cannot make an owner nor change an owner (403); a member cannot change anyone (403)', async () => {
    const w = await consoleWorld(ctx.api);
    expect((await w.admin.client.call('PATCH', `${membersPath(w)}/${w.member.id}`, { body: { role: 'owner' } })).status).toBe(403);
    expect((await w.admin.client.call('PATCH', `${membersPath(w)}/${w.owner.id}`, { body: { role: 'member' } })).status).toBe(403);
    expect((await w.member.client.call('PATCH', `${membersPath(w)}/${w.admin.id}`, { body: { role: 'member' } })).status).toBe(403);
    // An admin may manage members and admins.
    expect((await w.admin.client.call('PATCH', `${membersPath(w)}/${w.member.id}`, { body: { role: 'admin' } })).status).toBe(200);
  });

  it('the last owner cannot be demoted; with a second owner they can', async () => {
    const w = await consoleWorld(ctx.api);
    const last = await w.owner.client.call('PATCH', `${membersPath(w)}/${w.owner.id}`, { body: { role: 'admin' } });
    expect(last.status).toBe(400);
    expect(last.body.error.message).toBe('This is the last owner of the workspace. Make another member an owner first.');
    expect((await w.owner.client.call('PATCH', `${membersPath(w)}/${w.admin.id}`, { body: { role: 'owner' } })).status).toBe(200);
    expect((await w.owner.client.call('PATCH', `${membersPath(w)}/${w.owner.id}`, { body: { role: 'admin' } })).status).toBe(200);
  });

  it('an account that is not a member here is 404 and is not added; a bad role is 400', async () => {
    const w = await consoleWorld(ctx.api);
    expect((await w.owner.client.call('PATCH', `${membersPath(w)}/${w.outsider.id}`, { body: { role: 'member' } })).status).toBe(404);
    const [row] = await ctx.api.db.sql`select count(*)::int as n from memberships where workspace_id = ${w.workspaceId}::uuid and account_id = ${w.outsider.id}::uuid`;
    expect(row!.n).toBe(0);
    expect((await w.outsider.client.call('PATCH', `${membersPath(w)}/${w.member.id}`, { body: { role: 'admin' } })).status).toBe(404);
    const bad = await w.owner.client.call('PATCH', `${membersPath(w)}/${w.member.id}`, { body: { role: 'boss' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('role');
  });
});

describe('removing a member', () => {
  it('an admin removes a member (204, audited); the account stays and loses the workspace', async () => {
    const w = await consoleWorld(ctx.api);
    expect((await w.admin.client.call('DELETE', `${membersPath(w)}/${w.member.id}`)).status).toBe(204);
    expect((await w.member.client.call('GET', membersPath(w))).status).toBe(404);
    expect((await w.member.client.call('GET', '/me')).body.data.workspaces).toEqual([]);
    expect(await auditActions(w)).toContainEqual({ action: 'member.removed', target: w.member.id, details: { previous_role: 'member' } });
    expect((await w.admin.client.call('DELETE', `${membersPath(w)}/${w.member.id}`)).status).toBe(404);
  });

  it('an admin cannot remove an owner; the last owner cannot be removed', async () => {
    const w = await consoleWorld(ctx.api);
    expect((await w.admin.client.call('DELETE', `${membersPath(w)}/${w.owner.id}`)).status).toBe(403);
    expect((await w.owner.client.call('DELETE', `${membersPath(w)}/${w.owner.id}`)).status).toBe(400);
    expect((await w.member.client.call('DELETE', `${membersPath(w)}/${w.admin.id}`)).status).toBe(403);
    const second = await person(ctx.api, ctx.api.db.sql, ctx.api.clock, 'second');
    await addMember(ctx.api.db.sql, ctx.api.clock, { actorId: null, workspaceId: w.workspaceId, accountId: second.id, role: 'owner' });
    expect((await w.owner.client.call('DELETE', `${membersPath(w)}/${second.id}`)).status).toBe(204);
  });
});

describe('endpoint health mails, per member per workspace', () => {
  it('any member switches their own off and on; getMe shows it; another workspace is 404', async () => {
    const w = await consoleWorld(ctx.api);
    const before = await w.member.client.call('GET', '/me');
    expect(before.body.data.workspaces).toEqual([expect.objectContaining({ id: w.workspaceId, endpoint_notices: true })]);
    const off = await w.member.client.call('PATCH', `/me/workspaces/${w.workspaceId}`, { body: { endpoint_notices: false } });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ id: w.workspaceId, name: expect.any(String), role: 'member', endpoint_notices: false });
    const [row] = await ctx.api.db.sql`
      select endpoint_notices from memberships where workspace_id = ${w.workspaceId}::uuid and account_id = ${w.member.id}::uuid`;
    expect(row!.endpoint_notices).toBe(false);
    // Only their own: the owner's stays on.
    expect((await w.owner.client.call('GET', '/me')).body.data.workspaces[0].endpoint_notices).toBe(true);
    expect((await w.member.client.call('GET', '/me')).body.data.workspaces[0].endpoint_notices).toBe(false);
    expect((await w.member.client.call('PATCH', `/me/workspaces/${w.workspaceId}`, { body: { endpoint_notices: true } })).body.data.endpoint_notices).toBe(true);
    expect((await w.member.client.call('PATCH', `/me/workspaces/${w.outsiderWorkspaceId}`, { body: { endpoint_notices: false } })).status).toBe(404);
    expect((await w.member.client.call('PATCH', `/me/workspaces/${w.workspaceId}`, { body: { endpoint_notices: 'no' } })).status).toBe(400);
  });
});
