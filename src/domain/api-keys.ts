import type { Clock } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { MANAGER_ROLES, requireRole, requireWorkspace } from './accounts.js';
import { apiKeyHint, apiKeyPrefix, generateApiKey, hashApiKey } from './api-key-format.js';
import { writeAudit, type AuditSource } from './audit.js';
import { invalidInput, notFound } from './errors.js';
import { requireName } from './names.js';
import { requireTimestamp, requireUuid } from './validate.js';

/**
 * API keys of console-api.yaml "API keys": created by owners and admins with a name and an
 * optional expiry, shown exactly once, revocable. Only hashApiKey(key), a four-character hint and
 * the visible prefix are stored. Creation and revocation are audited in their own transaction
 * (`via`: the console, or by default the operator's CLI).
 *
 * Revocation is exact without telling anyone: every API request reads the key row
 * (read-model/scope.ts, validKeySql), so the next request after the commit is refused.
 */

export type ApiKeyState = 'active' | 'expired' | 'revoked';

export async function createApiKey(
  sql: Sql,
  clock: Clock,
  input: { workspaceId: string; name: string; expiresAt?: Date | null; actingAccountId: string | null; via?: AuditSource },
): Promise<{ id: string; key: string }> {
  const name = requireName(input.name, 'name', 100);
  const now = clock.now();
  const expiresAt = input.expiresAt == null ? null : requireTimestamp(input.expiresAt, 'expires at');
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw invalidInput(`expires at (${expiresAt.toISOString()}) must lie in the future`);
  }
  const workspace = await requireWorkspace(sql, input.workspaceId);
  await requireRole(sql, { workspaceId: workspace.id, accountId: input.actingAccountId, roles: MANAGER_ROLES });
  const key = generateApiKey();
  const id = await sql.begin(async (tx) => {
    const [row] = await tx<{ id: string }[]>`
      insert into api_keys (workspace_id, name, key_hash, key_hint, key_prefix, created_by, created_at, expires_at)
      values (${workspace.id}::uuid, ${name}, ${hashApiKey(key)}, ${apiKeyHint(key)}, ${apiKeyPrefix(key)},
              ${input.actingAccountId}::uuid, ${now}, ${expiresAt})
      returning id`;
    await writeAudit(tx, {
      workspaceId: workspace.id,
      actorId: input.actingAccountId,
      via: input.via,
      action: 'api_key.created',
      target: { type: 'api_key', id: row!.id },
      details: { name, prefix: apiKeyPrefix(key), expires_at: expiresAt ? expiresAt.toISOString() : null },
      at: now,
    });
    return row!.id;
  });
  return { id: id as string, key };
}

/** Revokes a key at once. Revoking a revoked key changes nothing and reports the first revocation. */
export async function revokeApiKey(
  sql: Sql,
  clock: Clock,
  input: { keyId: string; actingAccountId: string | null; via?: AuditSource },
): Promise<{ id: string; revokedAt: Date }> {
  const keyId = requireUuid(input.keyId, `API key ${String(input.keyId)}`);
  return sql.begin(async (tx) => {
    const [key] = await tx<{ workspace_id: string; revoked_at: Date | null; name: string; key_prefix: string }[]>`
      select workspace_id, revoked_at, name, key_prefix from api_keys where id = ${keyId}::uuid for update`;
    if (!key) throw notFound(`API key ${keyId}`);
    await requireRole(tx, { workspaceId: key.workspace_id, accountId: input.actingAccountId, roles: MANAGER_ROLES, target: `API key ${keyId}` });
    if (key.revoked_at) return { id: keyId, revokedAt: key.revoked_at };
    const now = clock.now();
    await tx`update api_keys set revoked_at = ${now} where id = ${keyId}::uuid`;
    await writeAudit(tx, {
      workspaceId: key.workspace_id,
      actorId: input.actingAccountId,
      via: input.via,
      action: 'api_key.revoked',
      target: { type: 'api_key', id: keyId },
      details: { name: key.name, prefix: key.key_prefix },
      at: now,
    });
    return { id: keyId, revokedAt: now };
  });
}

export interface ApiKeyListing {
  id: string;
  name: string;
  prefix: string;
  /** The stored last four characters: with the prefix, all of a key that may be shown. */
  hint: string;
  created_at: string;
  /** Keyset position (the exact created_at) for the next page. */
  created_at_key: string;
  created_by: { id: string; email: string; name: string } | null;
  expires_at: string | null;
  revoked_at: string | null;
  status: ApiKeyState;
}

/**
 * The one listing of a workspace's keys (console and CLI): a page, newest first, with who created
 * each and its state; never a hash or a value.
 */
export async function listApiKeys(
  sql: Sql,
  clock: Clock,
  input: { workspaceId: string; limit: number; after: { createdAt: string; id: string } | null; keyId?: string },
): Promise<ApiKeyListing[]> {
  const after = input.after ? sql`and (k.created_at, k.id) < (${input.after.createdAt}::timestamptz, ${input.after.id}::uuid)` : sql``;
  const only = input.keyId ? sql`and k.id = ${input.keyId}::uuid` : sql``;
  const now = clock.now();
  const rows = await sql<(Omit<ApiKeyListing, 'created_by'> & { by_id: string | null; by_email: string | null; by_name: string | null })[]>`
    select k.id, k.name, k.key_prefix as prefix, k.key_hint as hint, api_timestamp(k.created_at) as created_at,
           k.created_at::text as created_at_key, api_timestamp(k.expires_at) as expires_at,
           api_timestamp(k.revoked_at) as revoked_at,
           case when k.revoked_at is not null then 'revoked'
                when k.expires_at is not null and k.expires_at <= ${now} then 'expired'
                else 'active' end as status,
           a.id as by_id, a.email as by_email, a.name as by_name
      from api_keys k
      left join accounts a on a.id = k.created_by
     where k.workspace_id = ${input.workspaceId}::uuid ${after} ${only}
     order by k.created_at desc, k.id desc
     limit ${input.limit}`;
  return rows.map(({ by_id, by_email, by_name, ...row }) => ({
    ...row,
    created_by: by_id ? { id: by_id, email: by_email!, name: by_name! } : null,
  }));
}

/** One key of a workspace in the listing's shape, or null. */
export async function readApiKeyListing(sql: Sql, clock: Clock, input: { workspaceId: string; keyId: string }): Promise<ApiKeyListing | null> {
  const [row] = await listApiKeys(sql, clock, { workspaceId: input.workspaceId, limit: 1, after: null, keyId: input.keyId });
  return row ?? null;
}
