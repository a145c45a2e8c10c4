/**
 * The delivery model: one delivery per message and endpoint, open (pending, sending) in
 * webhook_queue and finished in webhook_delivery_log (migration 0019), both seen as one row of
 * the view webhook_deliveries; its statuses as the tables' check constraints allow them, and the
 * row as the statements read it.
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
