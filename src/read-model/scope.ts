import type { Fragment, Queryable } from '../db/connect.js';
import { rowObjects } from '../db/fixed-shape-rows.js';
import { onceBuilt, type OnceBuilt } from '../db/once-built.js';
import { unpricedSql } from './planned-once.js';

/**
 * Whose data a read may see: a workspace named by the caller (the webhook engine, the benchmark's
 * baseline), or the workspace of an API key. With a key, the key check of openapi.yaml
 * "Order of checks" step 6 (exists, not revoked, not expired) and the read are one statement, so a request
 * costs one round trip and a revocation still takes effect on the very next request: nothing is
 * cached.
 */
export type Scope = { workspaceId: string } | { apiKeyHash: Buffer };

/** The rows of a read and the workspace they were read for; null when the key is not valid. */
export type Scoped<T> = { workspaceId: string; value: T } | null;

/**
 * openapi.yaml "Authentication": a key is valid while it is not revoked and not past its expiry. The
 * one statement of that rule, for the api_keys row `alias`, at the caller's clock time `now`.
 */
export function validKeySql(sql: Queryable, alias: string, now: Date): Fragment {
  return sql`${sql(alias)}.revoked_at is null and (${sql(alias)}.expires_at is null or ${sql(alias)}.expires_at > ${now})`;
}

/** The values every scoped read has: the caller's clock time (a key's expiry is checked at it). */
export interface ScopedValues {
  now: Date;
}

/**
 * A read that names its workspace through the fragment it is given, ordered by `order` (over
 * its columns as `r`), as two once-built statements (db/once-built.ts): one for a workspace named
 * by the caller, one for an API key. With a key, the read is a lateral join on the key's row: no
 * valid key, no row at all; a valid key whose read finds nothing, one row marked as empty.
 */
export interface ScopedRead<S, V extends ScopedValues> {
  named: OnceBuilt<S, V & { workspaceId: string }>;
  keyed: OnceBuilt<S, V & { apiKeyHash: Buffer }>;
}

export function scopedRead<S, V extends ScopedValues>(definition: {
  /** Everything the read's text depends on besides its values (db/once-built.ts). */
  key: (shape: S) => string;
  read: (sql: Queryable, shape: S, values: V, workspace: Fragment) => Fragment;
  order: (sql: Queryable) => Fragment;
}): ScopedRead<S, V> {
  const { key, read, order } = definition;
  return {
    named: onceBuilt({
      key,
      // Hidden from the planner (planned-once.ts), as the key's workspace below is to it.
      build: (sql, shape, values) =>
        sql`select r.* from (${read(sql, shape, values, unpricedSql(sql, sql`${values.workspaceId}::uuid`))}) r order by ${order(sql)}`,
    }),
    keyed: onceBuilt({
      key,
      // The key's row goes by an alias no read uses: a read's own `k` would otherwise shadow it.
      // Columns 0 and 1 are the key's workspace and the marker of a row the read found.
      build: (sql, shape, values) => sql`
        select scope_key.workspace_id as scope_workspace_id, r.*
          from api_keys scope_key
          left join lateral (select true as in_scope, s.* from (${read(sql, shape, values, sql`scope_key.workspace_id`)}) s) r on true
         where scope_key.key_hash = ${values.apiKeyHash} and ${validKeySql(sql, 'scope_key', values.now)}
         order by ${order(sql)}`,
    }),
  };
}

/** Runs `statement` for `shape` and `values` in `scope`: the rows read, or null when the key is not valid. */
export async function readInScope<R extends object, S, V extends ScopedValues>(
  sql: Queryable,
  scope: Scope,
  statement: ScopedRead<S, V>,
  shape: S,
  values: V,
): Promise<Scoped<R[]>> {
  // Rows come back as arrays and are made into objects of one shape (db/fixed-shape-rows.ts):
  // an Offer's columns and the two scope columns are more than V8 keeps in fast objects.
  if ('workspaceId' in scope) {
    const result = await statement.named.values(sql, shape, { ...values, workspaceId: scope.workspaceId });
    return { workspaceId: scope.workspaceId, value: rowObjects<R>(result) };
  }
  const result = await statement.keyed.values(sql, shape, { ...values, apiKeyHash: scope.apiKeyHash });
  const first = result[0];
  if (!first) return null;
  return { workspaceId: first[0] as string, value: rowObjects<R>(result, 2, (values) => values[1] === true) };
}
