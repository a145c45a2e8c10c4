/**
 * docs/webhook-delivery.md "Fairness": "Workspaces are served round-robin, longest-waiting first; a workspace
 * setting up its first endpoint joins at the back. Timing is not guaranteed." The whole rule, and
 * where each part of it runs:
 *
 * 1. The queue. webhook_workspace_state holds one row per workspace that has (had) an endpoint,
 *    in a ring ordered by queue_position, each its own (migrations 0037, 0038); webhook_round_robin,
 *    the cursor, holds the place of the last workspace served, and the ring is read from just
 *    after it. A workspace gaining its first endpoint (again, after removing all) takes a place
 *    between the cursor and the next and the cursor moves onto it: behind every other
 *    (sql/joinFairnessQueue.ts, from management/endpoints.ts). A workspace that gets a pending
 *    delivery after having none comes just before the first of the next CLAIM_WORKSPACES ready
 *    workspaces whose last turn is later than its own (the mark of migration 0038), and
 *    otherwise keeps its place.
 * 2. Events into deliveries (fan-out, fanout.ts). Each batch of FANOUT_BATCH_SIZE outbox rows is
 *    taken workspace by workspace, the workspace whose oldest due row has waited longest first,
 *    at most FANOUT_ROWS_PER_WORKSPACE rows each (sql/takeDueOutbox.ts), so one workspace's burst
 *    never fills a batch. A burst beyond the 1,000 waiting events of docs/webhook-delivery.md "Limits" is cut in one statement
 *    (sql/dropExcessWaiting.ts) and then takes no more turns.
 * 3. Deliveries into attempts (the claim, sql/claimDeliveries.ts). A claim looks at the first
 *    CLAIM_WORKSPACES workspaces of the queue that have a due delivery, gives each what its start
 *    rate allows (60 per minute), alternates endpoints within a workspace, interleaves workspaces
 *    (one delivery of each, then a second of each, ...), and moves the cursor onto the last one
 *    it served: those it served are then behind all others, in the order it served them, and no
 *    workspace's place is written (its row's update is HOT). It finds them among the workspaces marked
 *    ready (migration 0030) without reading the others: a workspace is marked whenever a delivery
 *    of it becomes pending, and the claim sets one aside when it finds nothing it may start, until
 *    its earliest pending delivery is due or its start-rate window ends.
 * 4. The worker's loop (engine.ts `step`). Each round fans out at most one batch and then claims,
 *    so deliveries already due keep being claimed while a large outbox backlog is worked off.
 *
 * Why a waiting delivery has not started yet is told from the same rules (waiting.ts).
 */

/** Outbox rows turned into messages per fan-out transaction. */
export const FANOUT_BATCH_SIZE = 200;
/** Most rows one workspace gives to a fan-out batch, so a backlog never holds back others. */
export const FANOUT_ROWS_PER_WORKSPACE = 50;
/** Workspaces considered by one claim; the round-robin front of the queue. */
export const CLAIM_WORKSPACES = 100;
