import type { Queryable } from '../../db/connect.js';

/** Whether the endpoint exists at all, removed ones included (their log stays readable). */
export async function endpointExists(sql: Queryable, input: { endpointId: string }): Promise<boolean> {
  const rows = await sql`select 1 from webhook_endpoints where id = ${input.endpointId}::uuid`;
  return rows.length > 0;
}
