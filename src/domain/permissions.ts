import type { Queryable } from '../db/connect.js';
import { forbidden, invalidInput, notFound } from './errors.js';
import { isUuid, requireUuid } from './validate.js';

/** Who may do what in a workspace: membership roles, and the one permission rule. */

export const MEMBERSHIP_ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof MEMBERSHIP_ROLES)[number];
/** console-api.yaml "API keys" and "Webhook endpoints": owners and admins manage keys and endpoints. */
export const MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];

export async function requireWorkspace(sql: Queryable, workspaceId: string): Promise<{ id: string; name: string }> {
  const id = requireUuid(workspaceId, `workspace ${String(workspaceId)}`);
  const [row] = await sql<{ id: string; name: string }[]>`select id, name from workspaces where id = ${id}::uuid`;
  if (!row) throw notFound(`workspace ${workspaceId}`);
  return row;
}

export function requireRoleName(role: unknown): Role {
  if (!MEMBERSHIP_ROLES.includes(role as Role)) throw invalidInput(`role must be one of ${MEMBERSHIP_ROLES.join(', ')}, got "${String(role)}"`);
  return role as Role;
}

/** Who acts: an account (the console, or the CLI with `--as`), or null for the operator (the CLI with `--operator`). */
export type ActorId = string | null;

/**
 * The one permission rule of the console and the CLI (console-api.yaml "Who may do what"; as in
 * console-api.yaml "Who may do what", another workspace's ID looks like an unknown ID): an account that is
 * not a member of the workspace gets not_found with the words of an unknown ID (`target`, the
 * workspace by default), so nobody learns which workspaces exist; a member without one of `roles`
 * gets forbidden. The operator (null) holds the database's credentials and may do anything; the
 * workspace must exist. Returns the actor's role, 'operator' for the operator.
 */
export async function requireRole(
  sql: Queryable,
  input: { workspaceId: string; accountId: ActorId; roles: readonly Role[]; target?: string },
): Promise<Role | 'operator'> {
  const target = input.target ?? `workspace ${String(input.workspaceId)}`;
  if (!isUuid(input.workspaceId)) throw notFound(target);
  if (input.accountId === null) {
    const [ws] = await sql`select 1 from workspaces where id = ${input.workspaceId}::uuid`;
    if (!ws) throw notFound(target);
    return 'operator';
  }
  const accountId = requireUuid(input.accountId, `account ${String(input.accountId)}`);
  const role = await membershipRole(sql, { workspaceId: input.workspaceId, accountId });
  if (!role) throw notFound(target);
  if (!input.roles.includes(role)) {
    throw forbidden(`account ${accountId} is ${role} of workspace ${input.workspaceId}; this needs ${input.roles.join(' or ')}`);
  }
  return role;
}

/** The account's role in the workspace, null when it is not a member (or an ID has the wrong form). */
export async function membershipRole(sql: Queryable, input: { workspaceId: string; accountId: string }): Promise<Role | null> {
  if (!isUuid(input.workspaceId) || !isUuid(input.accountId)) return null;
  const [row] = await sql<{ role: Role }[]>`
    select role from memberships where workspace_id = ${input.workspaceId}::uuid and account_id = ${input.accountId}::uuid`;
  return row?.role ?? null;
}
