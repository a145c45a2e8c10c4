import type { Role } from './api/queries';
import type { CurrentWorkspace } from './session';

/** The roles, highest first (console-api.yaml Role). */
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

/**
 * Whether the signed-in person may hand out, change or remove `role` here: owners any role,
 * admins any but owner (domain/members.ts: an admin never touches an owner), members none.
 */
export function manageable(workspace: CurrentWorkspace, role: Role): boolean {
  return workspace.canChange && (workspace.role === 'owner' || role !== 'owner');
}
