import type { Queryable } from '../db/connect.js';
import { MANAGER_ROLES, type Role } from '../domain/accounts.js';
import { isUuid } from '../domain/validate.js';
import { refuse } from './errors.js';

/**
 * The console's permission rule (console-api.yaml "Who may do what"): any member reads; owners
 * and admins change (a member gets 403); an account that is not a member of the workspace gets
 * 404 with the body of an unknown ID, so the console never tells which workspaces exist.
 */
export async function workspaceRole(sql: Queryable, accountId: string, workspaceId: string): Promise<Role> {
  if (!isUuid(workspaceId)) throw refuse.notFound();
  const [row] = await sql<{ role: Role }[]>`
    select role from memberships where workspace_id = ${workspaceId}::uuid and account_id = ${accountId}::uuid`;
  if (!row) throw refuse.notFound();
  return row.role;
}

export async function requireReader(sql: Queryable, accountId: string, workspaceId: string): Promise<Role> {
  return workspaceRole(sql, accountId, workspaceId);
}

export async function requireManager(sql: Queryable, accountId: string, workspaceId: string): Promise<Role> {
  const role = await workspaceRole(sql, accountId, workspaceId);
  if (!MANAGER_ROLES.includes(role)) throw refuse.forbiddenRole();
  return role;
}
