import { systemClock, type Clock } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { MANAGER_ROLES, requireRole, requireWorkspace } from './accounts.js';
import { apiKeyHint, generateApiKey, hashApiKey } from './api-key-format.js';
import { invalidInput, notFound } from './errors.js';
import { requireText, requireTimestamp, requireUuid } from './validate.js';

/**
 * API keys of SPEC.md "Authentication" 3: created by owners and admins with a name and an
 * optional expiry, shown exactly once, revocable. Only hashApiKey(key) and a four-character hint
 * are stored.
 */

/**
 * Revocation "takes effect at once, also across several API processes" (issue #2): a process
 * that caches key lookups LISTENs here and drops the key whose hash (hex) arrives. The NOTIFY is
 * sent by the revoking transaction, so it arrives only if the revocation committed.
 */
export const API_KEY_REVOKED_CHANNEL = 'offerdesk_api_key_revoked';

export type ApiKeyState = 'active' | 'expired' | 'revoked';

export interface ApiKeySummary {
  id: string;
  name: string;
  hint: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  state: ApiKeyState;
}

export async function createApiKey(
  sql: Sql,
  clock: Clock,
  input: { workspaceId: string; name: string; expiresAt?: Date | null; actingAccountId: string },
): Promise<{ id: string; key: string }> {
  const name = requireText(input.name, 'name', 1, 100);
  const now = clock.now();
  const expiresAt = input.expiresAt == null ? null : requireTimestamp(input.expiresAt, 'expires at');
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw invalidInput(`expires at (${expiresAt.toISOString()}) must lie in the future`);
  }
  const workspace = await requireWorkspace(sql, input.workspaceId);
  await requireRole(sql, { workspaceId: workspace.id, accountId: input.actingAccountId, roles: MANAGER_ROLES });
  const key = generateApiKey();
  const [row] = await sql<{ id: string }[]>`
    insert into api_keys (workspace_id, name, key_hash, key_hint, created_by, created_at, expires_at)
    values (${workspace.id}::uuid, ${name}, ${hashApiKey(key)}, ${apiKeyHint(key)}, ${input.actingAccountId}::uuid,
            ${now}, ${expiresAt})
    returning id`;
  return { id: row!.id, key };
}

/** The keys of a workspace, newest first, without hash or value. */
export async function listApiKeys(sql: Sql, workspaceId: string, clock: Clock = systemClock): Promise<ApiKeySummary[]> {
  const workspace = await requireWorkspace(sql, workspaceId);
  const rows = await sql<Omit<ApiKeySummary, 'state'>[]>`
    select id, name, key_hint as hint, created_at, expires_at, revoked_at
      from api_keys
     where workspace_id = ${workspace.id}::uuid
     order by created_at desc, id desc`;
  const now = clock.now().getTime();
  return rows.map((row) => ({
    ...row,
    state: row.revoked_at ? 'revoked' : row.expires_at && row.expires_at.getTime() <= now ? 'expired' : 'active',
  }));
}

/** Revokes a key at once. Revoking a revoked key changes nothing and reports the first revocation. */
export async function revokeApiKey(
  sql: Sql,
  clock: Clock,
  input: { keyId: string; actingAccountId: string },
): Promise<{ id: string; revokedAt: Date }> {
  const keyId = requireUuid(input.keyId, `API key ${String(input.keyId)}`);
  return sql.begin(async (tx) => {
    const [key] = await tx<{ workspace_id: string; key_hash: Buffer; revoked_at: Date | null }[]>`
      select workspace_id, key_hash, revoked_at from api_keys where id = ${keyId}::uuid for update`;
    if (!key) throw notFound(`API key ${keyId}`);
    await requireRole(tx, { workspaceId: key.workspace_id, accountId: input.actingAccountId, roles: MANAGER_ROLES });
    if (key.revoked_at) return { id: keyId, revokedAt: key.revoked_at };
    const now = clock.now();
    await tx`update api_keys set revoked_at = ${now} where id = ${keyId}::uuid`;
    await tx`select pg_notify(${API_KEY_REVOKED_CHANNEL}, ${key.key_hash.toString('hex')})`;
    return { id: keyId, revokedAt: now };
  });
}
