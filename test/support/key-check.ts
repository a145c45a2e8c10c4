import type { Queryable } from '../../src/db/connect.js';
import { validKeySql } from '../../src/read-model/scope.js';

/**
 * The key check alone, without a read (docs/architecture.md, "The order of checks", step 6): the key's
 * workspace, or null when the key is not valid. The service always checks a key in the same
 * statement as its read (src/read-model/scope.ts); the benchmark's baseline server needs the check
 * on its own, for unknown keys.
 */
export async function workspaceOfKey(sql: Queryable, keyHash: Buffer, now: Date): Promise<string | null> {
  const [row] = await sql<{ workspace_id: string }[]>`
    select k.workspace_id from api_keys k where k.key_hash = ${keyHash} and ${validKeySql(sql, 'k', now)}`;
  return row?.workspace_id ?? null;
}
