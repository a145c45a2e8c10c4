import type { Queryable } from '../../db/connect.js';

/**
 * Marks the endpoint removed and cancels its open deliveries in one statement. Its delivery log
 * stays readable until retention deletes it. Returns the number of deliveries cancelled.
 */
export async function removeEndpoint(sql: Queryable, input: { endpointId: string; now: Date }): Promise<number> {
  const [row] = await sql<{ cancelled: number }[]>`
    with removed as (
      update webhook_endpoints
         set removed_at = ${input.now}, updated_at = ${input.now}
       where id = ${input.endpointId}::uuid and removed_at is null
      returning id
    ),
    cancelled as (
      update webhook_deliveries d
         set status = 'cancelled', failure_reason = 'endpoint_removed', lease_token = null, lease_until = null,
             finished_at = ${input.now}, updated_at = ${input.now}
        from removed
       where d.endpoint_id = removed.id and d.status in ('pending', 'sending')
      returning d.id
    )
    select count(*)::int as cancelled from cancelled`;
  return row!.cancelled;
}
