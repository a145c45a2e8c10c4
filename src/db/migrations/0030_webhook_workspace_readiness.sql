-- docs/webhook-delivery.md "Fairness": workspaces are served round-robin, longest-waiting first, and the
-- claim's cost must not grow with the number of workspaces (tens of thousands with endpoints,
-- thousands with waiting work). So the claim (src/webhooks/sql/claimDeliveries.ts) does not probe
-- every workspace with open deliveries for due work: each workspace's row in the round-robin
-- queue says whether it may have work due:
--
-- - ready: it may have a delivery due now. The claim reads these in queue order from
--   webhook_workspace_state_ready_idx and stops at the last workspace it takes.
-- - not ready: next_due_at is the earliest time it may have one (its earliest pending delivery,
--   no earlier than the end of a full start-rate window), or null: nothing pending. The claim
--   makes ready those whose time has come (webhook_workspace_state_wake_idx).
--
-- Every statement that makes a delivery pending (fan-out, a test event, a failed attempt's
-- reschedule, a resend, a claim given back) makes its workspace ready through the triggers below,
-- whoever writes it. Only the claim makes a workspace not ready, one it looked at and found with
-- nothing it may start. A lease that passes needs no mark: the claim reads stale attempts from
-- webhook_queue_sending_idx, as many as the fleet's concurrency at most.
alter table webhook_workspace_state
  add column ready boolean not null default false,
  add column next_due_at timestamptz(3);

create index webhook_workspace_state_ready_idx on webhook_workspace_state (queue_position, workspace_id) where ready;
create index webhook_workspace_state_wake_idx on webhook_workspace_state (next_due_at)
  where not ready and next_due_at is not null;

-- Every mark writes the row, even one already ready: a claim whose snapshot predates the new
-- delivery then sees the row changed under its lock and leaves the workspace ready (the claim's
-- `settled` step). Rows are locked in workspace order, so two statements marking the same
-- workspaces (two workers' outcomes) cannot deadlock.
create function webhook_workspace_mark_pending() returns trigger language plpgsql as $$
begin
  perform 1
     from webhook_workspace_state s
    where s.workspace_id in (select p.workspace_id from pending_rows p where p.status = 'pending')
    order by s.workspace_id
      for no key update;
  update webhook_workspace_state s
     set ready = true
   where s.workspace_id in (select p.workspace_id from pending_rows p where p.status = 'pending');
  return null;
end
$$;

create trigger webhook_queue_mark_pending_insert after insert on webhook_queue
  referencing new table as pending_rows for each statement execute function webhook_workspace_mark_pending();
create trigger webhook_queue_mark_pending_update after update on webhook_queue
  referencing new table as pending_rows for each statement execute function webhook_workspace_mark_pending();

-- Open deliveries written before this migration: their workspaces are ready, and a claim settles
-- each once. An old worker still draining neither reads nor clears readiness, and the trigger
-- marks what it writes.
update webhook_workspace_state s
   set ready = true
 where exists (select 1 from webhook_queue q where q.workspace_id = s.workspace_id);
