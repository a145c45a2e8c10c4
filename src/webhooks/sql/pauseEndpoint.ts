import type { Queryable } from '../../db/connect.js';

/**
 * SPEC.md "Delivery, retries, pause": "the endpoint is paused automatically and its open
 * deliveries are cancelled" (reason 'failures', the default), or by hand (reason 'manual').
 * Both in one statement; an attempt still in flight finds its delivery cancelled when it
 * completes and changes nothing. Returns whether this call paused it.
 */
export async function pauseEndpoint(
  sql: Queryable,
  input: { endpointId: string; now: Date; reason?: 'failures' | 'manual' },
): Promise<{ paused: boolean; cancelled: number }> {
  const [row] = await sql<{ paused: number; cancelled: number }[]>`
    with paused as (
      update webhook_endpoints
         set state = 'paused', paused_reason = ${input.reason ?? 'failures'}, paused_at = ${input.now}, updated_at = ${input.now}
       where id = ${input.endpointId}::uuid and state = 'active' and removed_at is null
      returning id
    ),
    cancelled as (
      update webhook_deliveries d
         set status = 'cancelled', failure_reason = 'endpoint_paused', lease_token = null, lease_until = null,
             finished_at = ${input.now}, updated_at = ${input.now}
        from paused
       where d.endpoint_id = paused.id and d.status in ('pending', 'sending')
      returning d.id
    )
    select (select count(*) from paused)::int as paused, (select count(*) from cancelled)::int as cancelled`;
  return { paused: row!.paused > 0, cancelled: row!.cancelled };
}
