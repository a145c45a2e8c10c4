-- The console's delivery log, delivery detail and endpoint statistics (console-api.yaml
-- "Webhook endpoints": "resend a delivery from the delivery log"; docs/delivery-log.md "Retention": 30 days of log).
-- A page of 50 rows must answer fast with 1,000,000 deliveries in one workspace under every
-- filter, so each filter has a keyset index in the list's order (created_at desc, id desc) and
-- the page never sorts the filtered set.

-- The offer a message is about (null for ping), filled at fan-out from the outbox row; the
-- console searches by it. Earlier messages get it from their stored body (data.offer.id).
alter table webhook_messages add column offer_id uuid;
update webhook_messages
   set offer_id = (body::jsonb #>> '{data,offer,id}')::uuid
 where type <> 'ping' and body::jsonb #>> '{data,offer,id}' is not null;
create index webhook_messages_offer_idx on webhook_messages (workspace_id, offer_id) where offer_id is not null;

-- The message's type, copied onto each delivery when it is made, so the type filter has an
-- index in list order (a filter on the joined message would read the whole workspace for a
-- rare type).
alter table webhook_deliveries add column event_type text;
update webhook_deliveries d set event_type = m.type from webhook_messages m where m.id = d.message_id;
alter table webhook_deliveries
  alter column event_type set not null,
  add constraint webhook_deliveries_event_type_len check (length(event_type) between 1 and 64);

-- Workspace-wide log, newest first: no filter, and since/until as a range of this index.
create index webhook_deliveries_ws_log_idx on webhook_deliveries (workspace_id, created_at desc, id desc);
create index webhook_deliveries_ws_status_log_idx on webhook_deliveries (workspace_id, status, created_at desc, id desc);
create index webhook_deliveries_ws_type_log_idx on webhook_deliveries (workspace_id, event_type, created_at desc, id desc);
-- One endpoint's log (webhook_deliveries_log_idx serves it unfiltered), by status and by type;
-- the status one also finds "resend failed since T" of one endpoint.
create index webhook_deliveries_endpoint_status_log_idx on webhook_deliveries (endpoint_id, status, created_at desc, id desc);
create index webhook_deliveries_endpoint_type_log_idx on webhook_deliveries (endpoint_id, event_type, created_at desc, id desc);

-- Each attempt's endpoint, so the 24-hour statistics of a workspace's endpoints read only their
-- own recent attempts (an index range per endpoint) instead of every attempt of the fleet.
alter table webhook_attempts add column endpoint_id uuid;
update webhook_attempts a set endpoint_id = d.endpoint_id from webhook_deliveries d where d.id = a.delivery_id;
alter table webhook_attempts
  alter column endpoint_id set not null,
  add constraint webhook_attempts_endpoint_fkey foreign key (endpoint_id) references webhook_endpoints (id) on delete cascade;
create index webhook_attempts_endpoint_time_idx on webhook_attempts (endpoint_id, attempted_at) include (succeeded);

-- The webhook-signature header an attempt sent, so a delivery's page shows the headers as sent
-- (webhook-timestamp is the attempt's attempted_at in seconds). A signature is not a secret; it
-- cannot be recomputed later without the endpoint's secret, which may have been rotated since.
-- Null for attempts that prepared no request and for attempts made before this column.
alter table webhook_attempts
  add column signature text constraint webhook_attempts_signature_len check (length(signature) <= 1000);

-- Why an endpoint is paused: 'failures' (openapi.yaml "Webhook delivery and retries": 5 final failures
-- in a row) or 'manual' (an operator's pause). Endpoints paused when this runs were paused by
-- failures: no manual pause exists before this column.
alter table webhook_endpoints
  add column paused_reason text constraint webhook_endpoints_paused_reason_check check (paused_reason in ('failures', 'manual'));
update webhook_endpoints set paused_reason = 'failures' where state = 'paused';
alter table webhook_endpoints
  add constraint webhook_endpoints_paused_reason_shape check (state = 'paused' or paused_reason is null);
