import type { Queryable } from '../db/connect.js';
import { notFound } from './errors.js';
import { isUuid } from './validate.js';
import type { Role } from './permissions.js';

/**
 * Each member decides per workspace whether the endpoint health mails (failing, 3 final failures
 * in a row, paused, recovered) reach them: `memberships.endpoint_notices`, on by default. Only
 * the member changes their own; another workspace's ID is not_found like an unknown one.
 */
export async function setEndpointNotices(
  sql: Queryable,
  input: { workspaceId: string; accountId: string; on: boolean },
): Promise<{ id: string; name: string; role: Role; endpoint_notices: boolean }> {
  const missing = `workspace ${String(input.workspaceId)}`;
  if (!isUuid(input.workspaceId)) throw notFound(missing);
  const [row] = await sql<{ id: string; name: string; role: Role; endpoint_notices: boolean }[]>`
    update memberships m set endpoint_notices = ${input.on}
      from workspaces w
     where m.workspace_id = ${input.workspaceId}::uuid and m.account_id = ${input.accountId}::uuid and w.id = m.workspace_id
    returning w.id, w.name, m.role, m.endpoint_notices`;
  if (!row) throw notFound(missing);
  return row;
}
