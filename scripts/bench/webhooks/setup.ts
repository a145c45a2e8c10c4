import { systemClock } from '../../../src/clock.js';
import type { Sql } from '../../../src/db/connect.js';
import { createAccount, createWorkspace } from '../../../src/domain/accounts.js';
import { seedOffers } from '../../../src/seed/seed.js';
import { MAX_WORKSPACES_PER_ACCOUNT } from '../../../src/webhooks/engine/policy.js';
import { autovacuumWebhookTables } from '../autoanalyze.js';

/**
 * `count` small workspaces with seeded offers, owned so that none passes the workspaces-per-account
 * limit of console-api.yaml "Limits", made once; their timeline entries with a webhook type are the candidates the bench's outbox rows point at.
 */
export type WebhookWorkspaces = { workspaces: { id: string; ownerId: string }[] };

const OFFERS_PER_WORKSPACE = 20;
/** Timeline types that have a webhook type (openapi.yaml "Webhook events"). */
const WEBHOOK_TYPE_OF = { sent: 'offer.sent', viewed: 'offer.first_viewed', accepted: 'offer.accepted', withdrawn: 'offer.withdrawn', expired: 'offer.expired' };

export async function ensureWebhookWorkspaces(sql: Sql, count: number, log: (line: string) => void): Promise<WebhookWorkspaces> {
  await sql`create table if not exists bench_webhook_setup (count int constraint bench_webhook_setup_pkey primary key, record jsonb not null)`;
  const [kept] = await sql<{ record: WebhookWorkspaces }[]>`select record from bench_webhook_setup where count = ${count}`;
  if (kept) return kept.record;

  const started = performance.now();
  const now = systemClock.now();
  const owners: string[] = [];
  const workspaces: WebhookWorkspaces['workspaces'] = [];
  for (let i = 0; i < count; i++) {
    if (i % MAX_WORKSPACES_PER_ACCOUNT === 0) {
      const tag = `${Date.now().toString(36)}-${owners.length}`;
      owners.push((await createAccount(sql, systemClock, { email: `hooks-${tag}@bench.offerdesk.example`, name: `Hooks Owner ${owners.length + 1}` })).id);
    }
    const ownerId = owners[owners.length - 1]!;
    const { id } = await createWorkspace(sql, systemClock, { name: `Hooks ${i + 1}`, timezone: 'Europe/Berlin', currency: 'EUR', ownerAccountId: ownerId });
    await seedOffers(sql, { workspaceId: id, offers: OFFERS_PER_WORKSPACE, randomSeed: 1000 + i, now });
    workspaces.push({ id, ownerId });
  }
  await sql`
    create table if not exists bench_webhook_candidates (
      workspace_id uuid not null, n int not null, offer_id uuid not null, sequence int not null, type text not null, occurred_at timestamptz(3) not null,
      constraint bench_webhook_candidates_pkey primary key (workspace_id, n)
    )`;
  await sql`
    insert into bench_webhook_candidates (workspace_id, n, offer_id, sequence, type, occurred_at)
    select o.workspace_id,
           (row_number() over (partition by o.workspace_id order by e.offer_id, e.sequence) - 1)::int,
           e.offer_id, e.sequence, (${sql.json(WEBHOOK_TYPE_OF)}::jsonb ->> e.type), e.occurred_at
      from offers o
      join offer_events e on e.offer_id = o.id
     where o.workspace_id = any (${workspaces.map((w) => w.id)}::uuid[])
       and e.type = any (${Object.keys(WEBHOOK_TYPE_OF)}::text[])`;
  const record: WebhookWorkspaces = { workspaces };
  await sql`insert into bench_webhook_setup (count, record) values (${count}, ${sql.json(record as never)})`;
  log(`made ${count} webhook workspaces with ${OFFERS_PER_WORKSPACE} offers each in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return record;
}

/**
 * A clean slate for one run (with `keepBefore`, the log bench's older seeded rows stay, the rest deleted and vacuumed).
 * The expiry and retention jobs are pushed a day ahead: expiry would expire the read bench's seeded offers mid-run.
 */
export async function clearDeliveries(sql: Sql, keepBefore?: Date | null): Promise<void> {
  if (keepBefore) {
    await sql`truncate webhook_outbox`;
    for (const [table, column] of [['webhook_queue', 'created_at'], ['webhook_delivery_log', 'finished_at'], ['webhook_attempts', 'attempted_at'], ['webhook_messages', 'created_at']] as const)
      await sql`delete from ${sql(table)} where ${sql(column)} >= ${keepBefore}`;
    // Production never clears its tables: what autovacuum would make of these deletes is done before a run, not in it.
    await autovacuumWebhookTables(sql);
  } else await sql`truncate webhook_outbox, webhook_attempts, webhook_queue, webhook_delivery_log, webhook_messages`;
  await sql`
    insert into worker_jobs (name, next_run_at)
    select name, now() + interval '1 day' from unnest(array['expire-offers', 'webhook-log-retention']) as name
    on conflict (name) do update set next_run_at = excluded.next_run_at`;
}

/** Forgets every endpoint and the fairness queue (endpoints are made again for each benchmark). */
export async function clearEndpoints(sql: Sql): Promise<void> {
  await clearDeliveries(sql);
  await sql`truncate webhook_endpoints, webhook_workspace_state, webhook_round_robin cascade`;
}

/** Outbox rows in one transaction, as product actions commit them; returns their ids and the wall clock after the commit. */
export async function commitEvents(sql: Sql, events: { workspaceId: string; count: number }[]): Promise<{ committedAt: number; ids: string[] }> {
  const rows = await sql<{ id: string }[]>`
    insert into webhook_outbox (workspace_id, type, offer_id, offer_sequence, occurred_at, available_at, created_at)
    select c.workspace_id, c.type, c.offer_id, c.sequence, c.occurred_at, now(), now()
      from unnest(${events.map((e) => e.workspaceId)}::uuid[], ${events.map((e) => e.count)}::int[]) as w(workspace_id, count)
      cross join lateral (select count(*)::int as k from bench_webhook_candidates k where k.workspace_id = w.workspace_id) m
      cross join lateral generate_series(0, w.count - 1) as g(i)
      join bench_webhook_candidates c on c.workspace_id = w.workspace_id and c.n = g.i % m.k
    returning id`;
  return { committedAt: performance.timeOrigin + performance.now(), ids: rows.map((r) => r.id) };
}

/**
 * An open backlog as fan-out leaves it: `perWorkspace` messages per workspace, each pending to every endpoint, due now;
 * with `at`, written then, one attempt made and due then (waiting for a retry, so no run waits for them).
 */
export async function seedOpenDeliveries(sql: Sql, workspaceIds: string[], perWorkspace: number, at?: { written: Date; due: Date }): Promise<number> {
  const [written, due] = [at ? sql`${at.written}::timestamptz` : sql`now()`, at ? sql`${at.due}::timestamptz` : sql`now()`];
  const [row] = await sql<{ n: number }[]>`
    with events as (
      select gen_random_uuid() as id, w.id as workspace_id
        from unnest(${workspaceIds}::uuid[]) as w(id), generate_series(1, ${perWorkspace})
    ),
    messages as (
      insert into webhook_messages (id, workspace_id, type, body, created_at)
      select id, workspace_id, 'offer.sent', json_build_object('id', id, 'type', 'offer.sent', 'data', '{}'::json)::text, ${written}
        from events
      returning id, workspace_id
    ),
    deliveries as (
      insert into webhook_queue
        (message_id, endpoint_id, workspace_id, event_type, status, attempt_count, max_attempts, next_attempt_at, created_at, updated_at)
      select m.id, e.id, m.workspace_id, 'offer.sent', 'pending', ${at ? 1 : 0}, 8, ${due}, ${written}, ${written}
        from messages m
        join webhook_endpoints e on e.workspace_id = m.workspace_id and e.removed_at is null
      returning 1
    )
    select count(*)::int as n from deliveries`;
  return row!.n;
}
