import type { Queryable } from '../../db/connect.js';

export async function countOpenDeliveries(sql: Queryable, input: { endpointId: string }): Promise<number> {
  const [row] = await sql<{ open: number }[]>`
    select count(*)::int as open
      from webhook_queue
     where endpoint_id = ${input.endpointId}::uuid`;
  return row!.open;
}
