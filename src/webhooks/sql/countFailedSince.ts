import type { Queryable } from '../../db/connect.js';
import { resendLeft } from './resendLeft.js';

/**
 * "Resend failed since T" of one endpoint: its failed deliveries created at or after `since`,
 * split by whether each still has a resend left (openapi.yaml "Webhook delivery and retries": "up to 5
 * times"). One index range of webhook_deliveries_endpoint_status_log_idx.
 */
export async function countFailedSince(
  sql: Queryable,
  input: { endpointId: string; since: Date },
): Promise<{ resendable: number; atLimit: number }> {
  const [row] = await sql<{ resendable: number; at_limit: number }[]>`
    select count(*) filter (where ${resendLeft(sql)})::int as resendable,
           count(*) filter (where not (${resendLeft(sql)}))::int as at_limit
      from webhook_delivery_log d
     where d.endpoint_id = ${input.endpointId}::uuid and d.status = 'failed' and d.created_at >= ${input.since}`;
  return { resendable: row!.resendable, atLimit: row!.at_limit };
}
