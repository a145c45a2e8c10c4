import type { Queryable } from '../../db/connect.js';

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  event_types: string[];
  state: 'active' | 'paused';
  failure_streak: number;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  paused_at: Date | null;
}

/** An endpoint that has not been removed; `forUpdate` locks it for the rest of the transaction. */
export async function readEndpoint(
  sql: Queryable,
  input: { endpointId: string; forUpdate?: boolean },
): Promise<EndpointRow | null> {
  const lock = input.forUpdate ? sql`for update` : sql``;
  const [row] = await sql<EndpointRow[]>`
    select id, workspace_id, url, event_types, state, failure_streak, created_by, created_at, updated_at, paused_at
      from webhook_endpoints
     where id = ${input.endpointId}::uuid and removed_at is null
     ${lock}`;
  return row ?? null;
}
