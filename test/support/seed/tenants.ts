import { randomUUID } from 'node:crypto';
import type { Sql } from '../../../src/db/connect.js';
import { OFFER_WEBHOOK_TYPES } from '../../../src/domain/outbox.js';
import { generateEndpointSecret, sealSecret } from '../../../src/sealing/secrets.js';

/**
 * Many tenants at once, set-based (the benchmark's `--workspaces` runs; tests of the claim with many
 * workspaces): each row of `rows` is one endpoint, subscribed to every offer event, at
 * `https://<host>/<kind>/<n>` (n counts from 1 over all rows), of the given workspace or, for a null
 * id, of a new workspace named `Tenant <kind> <n>` (no members). Every workspace joins the fairness
 * queue at `queuePosition(kind)` (docs/webhook-delivery.md "Limits"). Each endpoint gets its own secret sealed
 * under `masterKey`: a sealed value opens only for its own endpoint's id. One transaction, in
 * batches; `progress` after each.
 */
export interface TenantRow {
  workspaceId: string | null;
  kind: string;
}

const BATCH = 10_000;

export async function seedTenants(
  sql: Sql,
  input: { rows: TenantRow[]; host: string; masterKey: Buffer; queuePosition: (kind: string) => number; progress: (done: number) => void },
): Promise<void> {
  const kinds = [...new Set(input.rows.map((r) => r.kind))];
  await sql.begin(async (tx) => {
    for (let from = 0; from < input.rows.length; from += BATCH) {
      const batch = input.rows.slice(from, from + BATCH).map((r) => ({ ...r, workspaceId: r.workspaceId ?? randomUUID(), isNew: r.workspaceId === null, endpointId: randomUUID() }));
      const sealed = batch.map((r) => sealSecret(input.masterKey, r.endpointId, generateEndpointSecret()).toString('hex'));
      await tx`
        with input as (
          select t.*, ${from}::int + t.n as number
            from unnest(${batch.map((r) => r.workspaceId)}::uuid[], ${batch.map((r) => (r.isNew ? 1 : 0))}::int[], ${batch.map((r) => r.kind)}::text[],
                        ${batch.map((r) => r.endpointId)}::uuid[], ${sealed}::text[]) with ordinality as t(workspace_id, is_new, kind, endpoint_id, sealed, n)
        ),
        made as (
          insert into workspaces (id, name, timezone, currency, created_at)
          select workspace_id, 'Tenant ' || kind || ' ' || number, 'UTC', 'EUR', now() from input where is_new = 1
        ),
        endpoints as (
          insert into webhook_endpoints (id, workspace_id, url, event_types, secret_sealed, created_at, updated_at)
          select endpoint_id, workspace_id, 'https://' || ${input.host} || '/' || kind || '/' || number, ${[...OFFER_WEBHOOK_TYPES]}::text[], decode(sealed, 'hex'), now(), now()
            from input
        )
        insert into webhook_workspace_state (workspace_id, queue_position)
        select distinct i.workspace_id, p.position
          from input i join unnest(${kinds}::text[], ${kinds.map(input.queuePosition)}::bigint[]) as p(kind, position) on p.kind = i.kind
        on conflict (workspace_id) do nothing`;
      input.progress(from + batch.length);
    }
  });
}
