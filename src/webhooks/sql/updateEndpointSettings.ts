import type { Queryable } from '../../db/connect.js';

/** New address and/or event types; a value left null keeps the current one. */
export async function updateEndpointSettings(
  sql: Queryable,
  input: { endpointId: string; url: string | null; eventTypes: string[] | null; now: Date },
): Promise<boolean> {
  const rows = await sql`
    update webhook_endpoints
       set url = coalesce(${input.url}::text, url),
           event_types = coalesce(${input.eventTypes}::text[], event_types),
           updated_at = ${input.now}
     where id = ${input.endpointId}::uuid and removed_at is null
    returning id`;
  return rows.length > 0;
}
