import type { Queryable } from '../../db/connect.js';

export async function countOpenDeliveries(sql: Queryable, input: { endpointId: string }): Promise<number> {
  const [row] = await sql<{ open: number }[]>`
    select count(*)::int as open
      from webhook_deliveries
     where endpoint_id = ${input.endpointId}::uuid and status in ('pending', 'sending')`;
  return row!.open;
}
