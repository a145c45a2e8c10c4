/**
 * The delivery model: one row of webhook_deliveries per message and endpoint (migration 0002),
 * its statuses as the table's check constraint allows them, and the row as the statements read it.
 */
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
