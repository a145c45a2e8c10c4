import type { Queryable } from '../../db/connect.js';
import { finishDeliveries } from './finishDeliveries.js';

/**
 * Ends a delivery as failed after its last attempt, if this claim still holds it: out of
 * webhook_queue, its row written into webhook_delivery_log with that attempt's response status
 * (null: none came), in one statement (finishDeliveries.ts).
 */
export async function markFailedFinally(
  sql: Queryable,
  input: { deliveryId: string; leaseToken: string; now: Date; lastResponseStatus: number | null },
): Promise<boolean> {
  const rows = await sql`
    with ${finishDeliveries(sql, {
      name: 'ended',
      ending: sql`
        select ${input.deliveryId}::uuid as id, ${input.leaseToken}::uuid as lease_token, 'failed'::text as end_status,
               1 as attempts_added, null::text as end_reason, ${input.now}::timestamptz as ended_at,
               ${input.lastResponseStatus}::integer as last_response_status`,
    })}
    select id from ended`;
  return rows.length > 0;
}
