import type { Queryable } from '../../db/connect.js';

export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed' | 'cancelled';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'sending', 'succeeded', 'failed', 'cancelled'];

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  workspace_id: string;
  message_id: string;
  type: string;
  status: DeliveryStatus;
  attempt_count: number;
  max_attempts: number;
  next_attempt_at: Date | null;
  resend_count: number;
  is_test: boolean;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

/** The delivery log of an endpoint, newest first, optionally of one status. */
export async function listDeliveries(
  sql: Queryable,
  input: { endpointId: string; status: DeliveryStatus | null; limit: number },
): Promise<DeliveryRow[]> {
  const status = input.status === null ? sql`` : sql`and d.status = ${input.status}`;
  return sql<DeliveryRow[]>`
    select d.id, d.endpoint_id, d.workspace_id, d.message_id, m.type, d.status, d.attempt_count, d.max_attempts,
           d.next_attempt_at, d.resend_count, d.is_test, d.failure_reason, d.created_at, d.updated_at, d.finished_at
      from webhook_deliveries d
      join webhook_messages m on m.id = d.message_id
     where d.endpoint_id = ${input.endpointId}::uuid ${status}
     order by d.created_at desc, d.id desc
     limit ${input.limit}`;
}
