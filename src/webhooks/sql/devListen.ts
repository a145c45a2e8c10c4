import type { Queryable } from '../../db/connect.js';

/** A row of dev_listen_endpoints (migration 0007): where `offerdesk listen` receives, and its CA. */
export interface DevListenTarget {
  address: '127.0.0.1' | '::1';
  port: number;
  caPem: string;
}

export async function insertDevListen(
  sql: Queryable,
  input: { endpointId: string; target: DevListenTarget; now: Date },
): Promise<void> {
  await sql`
    insert into dev_listen_endpoints (endpoint_id, address, port, ca_pem, created_at, updated_at)
    values (${input.endpointId}::uuid, ${input.target.address}, ${input.target.port}, ${input.target.caPem},
            ${input.now}, ${input.now})
    on conflict (endpoint_id) do update
       set address = excluded.address, port = excluded.port, ca_pem = excluded.ca_pem, updated_at = excluded.updated_at`;
}

/** The mappings of these endpoints (claimed deliveries' endpoints), by endpoint id. */
export async function readDevListenTargets(sql: Queryable, endpointIds: string[]): Promise<Map<string, DevListenTarget>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await sql<{ endpoint_id: string; address: '127.0.0.1' | '::1'; port: number; ca_pem: string }[]>`
    select endpoint_id, address, port, ca_pem
      from dev_listen_endpoints
     where endpoint_id = any(${endpointIds}::uuid[])`;
  return new Map(rows.map((row) => [row.endpoint_id, { address: row.address, port: row.port, caPem: row.ca_pem }]));
}

export interface DevListenEndpoint {
  endpoint_id: string;
  port: number;
  secret_sealed: Buffer;
  state: 'active' | 'paused';
}

/** Endpoints `listen` made in this workspace for this account that were not removed (a listen that was killed). */
export async function findDevListenEndpoints(
  sql: Queryable,
  input: { workspaceId: string; accountId: string },
): Promise<DevListenEndpoint[]> {
  return sql<DevListenEndpoint[]>`
    select e.id as endpoint_id, d.port, e.secret_sealed, e.state
      from webhook_endpoints e
      join dev_listen_endpoints d on d.endpoint_id = e.id
     where e.workspace_id = ${input.workspaceId}::uuid
       and e.created_by = ${input.accountId}::uuid
       and e.removed_at is null
     order by e.created_at desc`;
}
