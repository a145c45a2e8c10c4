import type { Clock } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { MANAGER_ROLES, requireRole, requireRoleName, requireWorkspace, type ActorId, type Role } from './permissions.js';
import { writeAudit, type AuditSource } from './audit.js';
import { forbidden, invalidInput, notFound } from './errors.js';
import { requireUuid } from './validate.js';

/**
 * Who belongs to a workspace, with which role: the one home of the membership rules, for the CLI
 * and the console alike (console-api.yaml "Who may do what": owners and admins manage, members read).
 * - members cannot change memberships; an account outside the workspace gets not_found;
 * - an admin cannot make an owner, nor change or remove one;
 * - the last owner cannot be removed or demoted: someone must remain able to manage keys and endpoints.
 * The operator (actor null, the CLI's `--operator`) is bound only by the last-owner rule.
 * Every change writes its audit entry in the same transaction; a change to the same role writes none.
 */

export interface MemberChange {
  workspaceId: string;
  accountId: string;
  role: Role | null;
  previousRole: Role | null;
}

interface ActingInput {
  workspaceId: string;
  accountId: string;
  /** The acting account, or null for the operator. */
  actorId: ActorId;
  via?: AuditSource;
}

async function lockAndCheck(
  tx: Sql,
  input: ActingInput,
): Promise<{ workspaceId: string; accountId: string; actorRole: Role | 'operator'; current: Role | null }> {
  const workspace = await requireWorkspace(tx, input.workspaceId);
  // Serialises membership changes of one workspace, so two demotions cannot both pass the owner check.
  await tx`select 1 from workspaces where id = ${workspace.id}::uuid for update`;
  const actorRole = await requireRole(tx, { workspaceId: workspace.id, accountId: input.actorId, roles: MANAGER_ROLES });
  const accountId = requireUuid(input.accountId, `account ${String(input.accountId)}`);
  const [account] = await tx`select 1 from accounts where id = ${accountId}::uuid`;
  if (!account) throw notFound(`account ${accountId}`);
  const [row] = await tx<{ role: Role }[]>`
    select role from memberships where workspace_id = ${workspace.id}::uuid and account_id = ${accountId}::uuid`;
  return { workspaceId: workspace.id, accountId, actorRole, current: row?.role ?? null };
}

async function requireAnotherOwner(tx: Sql, workspaceId: string, accountId: string): Promise<void> {
  const [others] = await tx<{ owners: number }[]>`
    select count(*)::int as owners from memberships
     where workspace_id = ${workspaceId}::uuid and role = 'owner' and account_id <> ${accountId}::uuid`;
  if (others!.owners === 0) throw invalidInput(`account ${accountId} is the last owner of workspace ${workspaceId}`);
}

/**
 * Adds an account to a workspace, or changes its role there. With `existingOnly` (the console's
 * role change) an account that is not a member is not_found instead of added.
 */
export async function addMember(
  sql: Sql,
  clock: Clock,
  input: ActingInput & { role: Role; existingOnly?: boolean },
): Promise<MemberChange> {
  const role = requireRoleName(input.role);
  return sql.begin(async (tx) => {
    const { workspaceId, accountId, actorRole, current } = await lockAndCheck(tx as unknown as Sql, input);
    if (current === null && input.existingOnly) throw notFound(`member ${accountId} of workspace ${workspaceId}`);
    if (actorRole === 'admin' && (role === 'owner' || current === 'owner')) {
      throw forbidden(`an admin cannot make an owner or change an owner's role; ask an owner of workspace ${workspaceId}`);
    }
    if (current === role) return { workspaceId, accountId, role, previousRole: current };
    if (current === 'owner') await requireAnotherOwner(tx as unknown as Sql, workspaceId, accountId);
    const now = clock.now();
    await tx`
      insert into memberships (workspace_id, account_id, role, created_at)
      values (${workspaceId}::uuid, ${accountId}::uuid, ${role}, ${now})
      on conflict (workspace_id, account_id) do update set role = excluded.role`;
    await writeAudit(tx, {
      workspaceId,
      actorId: input.actorId,
      via: input.via,
      action: current === null ? 'member.added' : 'member.role_changed',
      target: { type: 'account', id: accountId },
      details: current === null ? { role } : { role, previous_role: current },
      at: now,
    });
    return { workspaceId, accountId, role, previousRole: current };
  }) as Promise<MemberChange>;
}

/** Removes an account from a workspace; an account that is not a member there is not_found. */
export async function removeMember(sql: Sql, clock: Clock, input: ActingInput): Promise<MemberChange> {
  return sql.begin(async (tx) => {
    const { workspaceId, accountId, actorRole, current } = await lockAndCheck(tx as unknown as Sql, input);
    if (current === null) throw notFound(`member ${accountId} of workspace ${workspaceId}`);
    if (actorRole === 'admin' && current === 'owner') {
      throw forbidden(`an admin cannot remove an owner; ask an owner of workspace ${workspaceId}`);
    }
    if (current === 'owner') await requireAnotherOwner(tx as unknown as Sql, workspaceId, accountId);
    const now = clock.now();
    await tx`delete from memberships where workspace_id = ${workspaceId}::uuid and account_id = ${accountId}::uuid`;
    await writeAudit(tx, {
      workspaceId,
      actorId: input.actorId,
      via: input.via,
      action: 'member.removed',
      target: { type: 'account', id: accountId },
      details: { previous_role: current },
      at: now,
    });
    return { workspaceId, accountId, role: null, previousRole: current };
  }) as Promise<MemberChange>;
}

export interface MemberListItem {
  account_id: string;
  email: string;
  name: string;
  role: Role;
}

/** A workspace's members, owners first. The caller checks who may read it. */
export async function listMembers(sql: Sql, workspaceId: string): Promise<MemberListItem[]> {
  return sql<MemberListItem[]>`
    select a.id as account_id, a.email, a.name, m.role
      from memberships m join accounts a on a.id = m.account_id
     where m.workspace_id = ${workspaceId}::uuid
     order by array_position(array['owner', 'admin', 'member'], m.role), a.email`;
}
