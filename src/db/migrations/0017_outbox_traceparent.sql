-- Tracing (docs/operations.md "Tracing"): the W3C traceparent of the span that wrote an outbox row
-- (the console or API request, the CLI command, the periodic job), carried to the message the
-- fan-out makes of it, so the fan-out and every delivery attempt of the event link back to the
-- action that caused it. Null when tracing was off. Nothing secret: version, trace id, span id
-- and flags only (55 characters).
alter table webhook_outbox add column traceparent text
  check (traceparent is null or traceparent ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$');
alter table webhook_messages add column traceparent text
  check (traceparent is null or traceparent ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$');
