import type { Queryable } from '../../db/connect.js';

export interface EndpointCounts {
  /** Endpoints of the workspace, active or paused. */
  inWorkspace: number;
  /** Workspaces in which the account has created endpoints still present (paused ones count). */
  workspacesOfAccount: number;
  /** Whether one of those is this workspace. */
  accountHasEndpointHere: boolean;
}

/** The counts behind console-api.yaml "Limits": 5 endpoints per workspace, 20 workspaces per account. */
export async function countEndpointLimits(
  sql: Queryable,
  input: { workspaceId: string; accountId: string | null },
): Promise<EndpointCounts> {
  const [row] = await sql<{ in_workspace: number; of_account: number; here: boolean }[]>`
    select
      (select count(*) from webhook_endpoints
        where workspace_id = ${input.workspaceId}::uuid and removed_at is null)::int as in_workspace,
      (select count(distinct workspace_id) from webhook_endpoints
        where created_by = ${input.accountId}::uuid and removed_at is null)::int as of_account,
      exists (select 1 from webhook_endpoints
               where created_by = ${input.accountId}::uuid and removed_at is null
                 and workspace_id = ${input.workspaceId}::uuid) as here`;
  return { inWorkspace: row!.in_workspace, workspacesOfAccount: row!.of_account, accountHasEndpointHere: row!.here };
}
