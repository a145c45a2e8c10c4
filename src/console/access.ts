import type { Queryable } from '../db/connect.js';
import { MANAGER_ROLES, requireRole, MEMBERSHIP_ROLES, type Role } from '../domain/accounts.js';

/**
 * The console's side of the one permission rule, domain/accounts.ts requireRole
 * (console-api.yaml "Who may do what"): any member reads; owners and admins change. Its refusals
 * are DomainErrors that errors.ts answerError turns into the console's 404 with the body of an
 * unknown ID (a non-member, so the console never tells which workspaces exist) and 403.
 */
export async function requireReader(sql: Queryable, accountId: string, workspaceId: string): Promise<Role> {
  return (await requireRole(sql, { workspaceId, accountId, roles: MEMBERSHIP_ROLES })) as Role;
}

export async function requireManager(sql: Queryable, accountId: string, workspaceId: string): Promise<Role> {
  return (await requireRole(sql, { workspaceId, accountId, roles: MANAGER_ROLES })) as Role;
}
