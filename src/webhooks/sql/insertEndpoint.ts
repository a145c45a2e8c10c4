import type { Queryable } from '../../db/connect.js';

/** The id comes from the caller: the secret is sealed bound to it before the row exists. */
export async function insertEndpoint(
  sql: Queryable,
  input: { id: string; workspaceId: string; url: string; eventTypes: string[]; secretSealed: Buffer; createdBy: string | null; now: Date },
): Promise<{ id: string }> {
  const [row] = await sql<{ id: string }[]>`
    insert into webhook_endpoints (id, workspace_id, url, event_types, secret_sealed, created_by, created_at, updated_at)
    values (${input.id}::uuid, ${input.workspaceId}::uuid, ${input.url}, ${input.eventTypes}::text[], ${input.secretSealed},
            ${input.createdBy}::uuid, ${input.now}, ${input.now})
    returning id`;
  return row!;
}
