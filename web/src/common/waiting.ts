import type { Delivery } from '../api/queries';

/** Why a delivery waits (the delivery log's waiting_reason), in the reader's words. */
export const WAITING_REASONS: Record<NonNullable<Delivery['waiting_reason']>, string> = {
  retry_pause: 'pause before the next retry',
  endpoint_cap: "the endpoint's limit of open deliveries is reached",
  workspace_start_rate: "the workspace's start rate is reached",
  turn: 'waiting for its turn',
};
