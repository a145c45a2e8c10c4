import type { Queryable } from '../db/connect.js';
import { MANAGER_ROLES, membershipRole, type Role } from '../domain/accounts.js';
import { refuse } from './errors.js';

/**
 * The console's permission rule (console-api.yaml "Who may do what"): any member reads; owners
 * and admins change (a member gets 403); an account that is not a member of the workspace gets
 * 404 with the body of an unknown ID, so the console never tells which workspaces exist.
 */
export async function workspaceRole(sql: Queryable, accountId: string, workspaceId: string): Promise<Role> {
  // The same membership look-up as the domain's requireRole, which every change checks again.
  const role = await membershipRole(sql, { workspaceId, accountId });
  if (!role) throw refuse.notFound();
  return role;
}

export async function requireReader(sql: Queryable, accountId: string, workspaceId: string): Promise<Role> {
  return workspaceRole(sql, accountId, workspaceId);
}

export async function requireManager(sql: Queryable, accountId: string, workspaceId: string): Promise<Role> {
  const role = await workspaceRole(sql, accountId, workspaceId);
  if (!MANAGER_ROLES.includes(role)) throw refuse.forbiddenRole();
  return role;
}
