import type { Queryable } from '../../db/connect.js';
import { cancelOpenDeliveries } from './cancelOpenDeliveries.js';

/**
 * openapi.yaml "Webhook delivery and retries": "the endpoint is paused automatically and its open
 * deliveries are cancelled" (reason 'failures', the default), or by hand (reason 'manual').
 * Both in one statement; an attempt still in flight finds its delivery cancelled when it
 * completes and changes nothing. Returns whether this call paused it.
 */
export async function markEndpointPaused(
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
    ${cancelOpenDeliveries(sql, { endpoints: 'paused', reason: 'endpoint_paused', now: input.now })}
    select (select count(*) from paused)::int as paused, (select count(*) from cancelled)::int as cancelled`;
  return { paused: row!.paused > 0, cancelled: row!.cancelled };
}
