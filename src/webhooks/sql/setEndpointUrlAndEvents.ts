import type { Queryable } from '../../db/connect.js';

/** New address and/or event types; null keeps the current value. False when the endpoint is gone. */
export async function setEndpointUrlAndEvents(
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
