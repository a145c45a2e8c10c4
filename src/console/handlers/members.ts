import { addMember, listMembers, removeMember } from '../../domain/members.js';
import { sendEmpty, sendJson } from '../../http/respond.js';
import { requireReader } from '../access.js';
import { signedIn, type ConsoleHandlerTable, type ConsoleRequest } from '../context.js';
import type { Role } from '../../domain/accounts.js';
import { DomainError } from '../../domain/errors.js';
import { refuse } from '../errors.js';
import { body, pathParam } from './paging.js';

/**
 * The members of a workspace (console-api.yaml tag "Members"): any member reads the list; owners
 * and admins change roles and remove, by the rules of domain/members.ts (an admin never touches
 * an owner; the last owner stays), audited there as from the CLI.
 */

/** The one input the membership rules refuse here (domain/members.ts): the last owner, said for people. */
async function lastOwnerSaid<T>(change: Promise<T>): Promise<T> {
  try {
    return await change;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_input') {
      throw refuse.invalid('This is the last owner of the workspace. Make another member an owner first.');
    }
    throw error;
  }
}

async function listMembersHandler(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  const members = await listMembers(request.deps.sql, workspaceId);
  sendJson(request.res, 200, {
    data: members.map((m) => ({ id: m.account_id, email: m.email, name: m.name, role: m.role })),
    next_cursor: null,
  });
}

async function changeMemberRole(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const accountId = pathParam(request, 'accountId');
  const { role } = body<{ role: Role }>(request);
  const { sql, clock } = request.deps;
  await lastOwnerSaid(
    addMember(sql, clock, { workspaceId, accountId, role, actorId: signedIn(request).account.id, via: request.via, existingOnly: true }),
  );
  const member = (await listMembers(sql, workspaceId)).find((m) => m.account_id === accountId);
  if (!member) throw refuse.notFound();
  sendJson(request.res, 200, { data: { id: member.account_id, email: member.email, name: member.name, role: member.role } });
}

async function removeMemberHandler(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  const accountId = pathParam(request, 'accountId');
  await lastOwnerSaid(
    removeMember(request.deps.sql, request.deps.clock, { workspaceId, accountId, actorId: signedIn(request).account.id, via: request.via }),
  );
  sendEmpty(request.res, 204);
}

export const memberHandlers: ConsoleHandlerTable = {
  listMembers: listMembersHandler,
  changeMemberRole,
  removeMember: removeMemberHandler,
};
