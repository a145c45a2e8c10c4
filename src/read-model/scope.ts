import type postgres from 'postgres';
import type { Queryable } from '../db/connect.js';
import { rowObjects } from '../db/fixed-shape-rows.js';
import { unpricedSql } from './planned-once.js';

/**
 * Whose data a read may see: a workspace named by the caller (the webhook engine, the benchmark's
 * baseline), or the workspace of an API key. With a key, the key check of SPEC.md "Order of
 * checks" step 6 (exists, not revoked, not expired) and the read are one statement, so a request
 * costs one round trip and a revocation still takes effect on the very next request: nothing is
 * cached.
 */
export type Scope = { workspaceId: string } | { apiKeyHash: Buffer };

/** The rows of a read and the workspace they were read for; null when the key is not valid. */
export type Scoped<T> = { workspaceId: string; value: T } | null;

/** A piece of SQL built with the tagged template, not yet sent. */
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

/**
 * SPEC.md "Authentication": a key is valid while it is not revoked and not past its expiry. The
 * one statement of that rule, for the api_keys row `alias`, at the caller's clock time `now`.
 */
export function validKeySql(sql: Queryable, alias: string, now: Date): Fragment {
  return sql`${sql(alias)}.revoked_at is null and (${sql(alias)}.expires_at is null or ${sql(alias)}.expires_at > ${now})`;
}

/**
 * Runs `read` (a query that names its workspace through the fragment it is given) in `scope`,
 * ordered by `order` (over its columns as `r`). With a key, the read is a lateral join on the key's
 * row: no valid key, no row at all (null); a valid key whose read finds nothing, one row marked
 * as empty.
 */
export async function readInScope<R extends object>(
  sql: Queryable,
  scope: Scope,
  now: Date,
  read: (workspace: Fragment) => Fragment,
  order: Fragment,
): Promise<Scoped<R[]>> {
  // Rows come back as arrays and are made into objects of one shape (db/fixed-shape-rows.ts):
  // an Offer's columns and the two scope columns are more than V8 keeps in fast objects.
  if ('workspaceId' in scope) {
    // Hidden from the planner (planned-once.ts), as the key's workspace below is to it.
    const workspace = unpricedSql(sql, sql`${scope.workspaceId}::uuid`);
    const result = await sql`select r.* from (${read(workspace)}) r order by ${order}`.values();
    return { workspaceId: scope.workspaceId, value: rowObjects<R>(result) };
  }
  // The key's row goes by an alias no read uses: a read's own `k` would otherwise shadow it.
  // Columns 0 and 1 are the key's workspace and the marker of a row the read found.
  const result = await sql`
    select scope_key.workspace_id as scope_workspace_id, r.*
      from api_keys scope_key
      left join lateral (select true as in_scope, s.* from (${read(sql`scope_key.workspace_id`)}) s) r on true
     where scope_key.key_hash = ${scope.apiKeyHash} and ${validKeySql(sql, 'scope_key', now)}
     order by ${order}`.values();
  const first = result[0];
  if (!first) return null;
  return { workspaceId: first[0] as string, value: rowObjects<R>(result, 2, (values) => values[1] === true) };
}

/** The key check alone (the benchmark's baseline for unknown keys): the key's workspace, or null. */
export async function workspaceOfKey(sql: Queryable, keyHash: Buffer, now: Date): Promise<string | null> {
  const [row] = await sql<{ workspace_id: string }[]>`
    select k.workspace_id from api_keys k where k.key_hash = ${keyHash} and ${validKeySql(sql, 'k', now)}`;
  return row?.workspace_id ?? null;
}
