import type { Sql } from '../../../src/db/connect.js';

/**
 * Tenants at scale, written set-based in one statement each: `waiting` workspaces with one
 * endpoint and `perWorkspace` pending deliveries due at `due`, and `idle` workspaces with an
 * endpoint and nothing open. Every workspace's place in the round-robin queue is drawn at random
 * among all (old and new), so the waiting ones are spread through the queue as time leaves them.
 */
export async function seedTenants(sql: Sql, input: { waiting: number; idle: number; perWorkspace: number; due: Date }): Promise<void> {
  await sql`
    with made as (
      insert into workspaces (name, timezone, currency)
      select 'tenant ' || g, 'UTC', 'EUR' from generate_series(1, ${input.waiting + input.idle}) g
      returning id
    ),
    numbered as (select id, row_number() over () as n from made),
    state as (
      insert into webhook_workspace_state (workspace_id, queue_position)
      select id, n from numbered
      returning workspace_id
    ),
    endpoints as (
      insert into webhook_endpoints (workspace_id, url, event_types, secret_sealed, created_at, updated_at)
      select id, 'https://hooks.test/tenant', array['offer.sent'], '\\x00'::bytea, ${input.due}, ${input.due}
        from numbered
      returning id, workspace_id
    ),
    messages as (
      insert into webhook_messages (id, workspace_id, type, body, created_at)
      select gen_random_uuid(), n.id, 'offer.sent', '{}', ${input.due}
        from numbered n, generate_series(1, ${input.perWorkspace})
       where n.n <= ${input.waiting}
      returning id, workspace_id
    )
    insert into webhook_queue
      (message_id, endpoint_id, workspace_id, event_type, status, max_attempts, next_attempt_at, created_at, updated_at)
    select m.id, e.id, m.workspace_id, 'offer.sent', 'pending', 8, ${input.due}, ${input.due}, ${input.due}
      from messages m
      join endpoints e on e.workspace_id = m.workspace_id`;
  await sql`
    update webhook_workspace_state s
       set queue_position = r.position
      from (select workspace_id, row_number() over (order by random()) as position from webhook_workspace_state) r
     where s.workspace_id = r.workspace_id`;
  // The ring's cursor before the first place: the ring is read in the order just drawn.
  await sql`delete from webhook_round_robin`;
  await sql`analyze workspaces, webhook_workspace_state, webhook_endpoints, webhook_messages, webhook_queue`;
}
