import type { Queryable } from '../../db/connect.js';
import { cancelOpenDeliveries } from './cancelOpenDeliveries.js';

/**
 * Marks the endpoint removed and cancels its open deliveries in one statement. Its delivery log
 * stays readable until retention deletes it. Returns the number of deliveries cancelled.
 */
export async function markEndpointRemoved(sql: Queryable, input: { endpointId: string; now: Date }): Promise<number> {
  const [row] = await sql<{ cancelled: number }[]>`
    with removed as (
      update webhook_endpoints
         set removed_at = ${input.now}, updated_at = ${input.now}
       where id = ${input.endpointId}::uuid and removed_at is null
      returning id
    ),
    ${cancelOpenDeliveries(sql, { endpoints: 'removed', reason: 'endpoint_removed', now: input.now })}
    select count(*)::int as cancelled from cancelled`;
  return row!.cancelled;
}
