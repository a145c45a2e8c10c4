import type { Queryable } from '../../db/connect.js';
import type { EndpointRow } from './readEndpoint.js';

export async function selectWorkspaceEndpoints(sql: Queryable, input: { workspaceId: string }): Promise<EndpointRow[]> {
  return sql<EndpointRow[]>`
    select id, workspace_id, url, event_types, state, failure_streak, created_by, created_at, updated_at, paused_at
      from webhook_endpoints
     where workspace_id = ${input.workspaceId}::uuid and removed_at is null
     order by created_at, id`;
}
