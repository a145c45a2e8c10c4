import type { Queryable } from '../../db/connect.js';

/**
 * Step 6 of SPEC.md "Order of checks": the key's existence, revocation and expiry. One indexed
 * probe per request and no cache, so a revocation takes effect on the very next request in
 * every API process.
 */
export async function workspaceOfKey(sql: Queryable, keyHash: Buffer, now: Date): Promise<string | null> {
  const [row] = await sql<{ workspace_id: string }[]>`
    select k.workspace_id from api_keys k
    where k.key_hash = ${keyHash}
      and k.revoked_at is null
      and (k.expires_at is null or k.expires_at > ${now})`;
  return row?.workspace_id ?? null;
}
