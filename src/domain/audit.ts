import type { Queryable } from '../db/connect.js';

/**
 * The audit log of a workspace: every management change and sign-in (who, what, when, from which
 * address). Each entry is written by the domain function that makes the change, inside the same
 * transaction, so the console and the operator's CLI are audited alike and a rolled-back change
 * leaves no entry. `details` never carries a secret or a key value: writers pass only the fields
 * listed at each call (names, URLs, event types, counts, IDs).
 */

export const AUDIT_ACTIONS = [
  'signed_in',
  'api_key.created',
  'api_key.revoked',
  'endpoint.added',
  'endpoint.updated',
  'endpoint.removed',
  'endpoint.tested',
  'endpoint.secret_rotated',
  'endpoint.resumed',
  'endpoint.paused',
  'endpoint.notice_sent',
  'delivery.resent',
  'delivery.resent_failed',
  'member.added',
  'member.role_changed',
  'member.removed',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** How a session started: password, sign-in link, password-reset link, or accepted invitation. */
export type SignInMethod = 'password' | 'link' | 'password_reset' | 'invitation';

/** Through what an account acted, and from which client address when known. */
export interface AuditSource {
  label: string;
  ip: string | null;
}

/**
 * The operator's CLI: the acting account is its `--as`, or none with `--operator` (the operator
 * acting with the database's credentials). The default of every domain change.
 */
export const CLI_SOURCE: AuditSource = { label: 'operator (CLI)', ip: null };
export const CONSOLE_LABEL = 'console';
/** The webhook engine's own changes (an endpoint paused after 5 final failures in a row). */
export const ENGINE_SOURCE: AuditSource = { label: 'webhook engine', ip: null };

export interface AuditWrite {
  workspaceId: string;
  actorId: string | null;
  via?: AuditSource;
  action: AuditAction;
  target: { type: string; id: string } | null;
  details?: Record<string, string | number | boolean | null | string[]>;
  at: Date;
}

export async function writeAudit(tx: Queryable, entry: AuditWrite): Promise<void> {
  const via = entry.via ?? CLI_SOURCE;
  await tx`
    insert into audit_entries (workspace_id, actor_account_id, actor_label, action, target_type, target_id, details, ip, created_at)
    values (${entry.workspaceId}::uuid, ${entry.actorId}::uuid, ${via.label}, ${entry.action},
            ${entry.target?.type ?? null}, ${entry.target?.id ?? null}, ${tx.json(entry.details ?? {})}::jsonb,
            ${via.ip}::inet, ${entry.at})`;
}

/** A sign-in is recorded in every workspace the account belongs to (set-based, one statement). */
export async function writeSignInAudit(
  tx: Queryable,
  entry: { accountId: string; via: AuditSource; method: SignInMethod; at: Date },
): Promise<void> {
  await tx`
    insert into audit_entries (workspace_id, actor_account_id, actor_label, action, details, ip, created_at)
    select m.workspace_id, ${entry.accountId}::uuid, ${entry.via.label}, 'signed_in',
           ${tx.json({ method: entry.method })}::jsonb, ${entry.via.ip}::inet, ${entry.at}
      from memberships m
     where m.account_id = ${entry.accountId}::uuid`;
}

export interface AuditEntryRow {
  id: string;
  at: string;
  created_at_key: string;
  actor_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  actor_label: string;
  action: AuditAction;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
}

/** One page of a workspace's log, newest first, after the keyset position `after` when given. */
export async function listAuditEntries(
  sql: Queryable,
  input: { workspaceId: string; limit: number; after: { createdAt: string; id: string } | null },
): Promise<AuditEntryRow[]> {
  const after = input.after
    ? sql`and (a.created_at, a.id) < (${input.after.createdAt}::timestamptz, ${input.after.id}::uuid)`
    : sql``;
  return sql<AuditEntryRow[]>`
    select a.id, api_timestamp(a.created_at) as at, a.created_at::text as created_at_key,
           a.actor_account_id as actor_id, ac.email as actor_email, ac.name as actor_name,
           a.actor_label, a.action, a.target_type, a.target_id, a.details, host(a.ip) as ip
      from audit_entries a
      left join accounts ac on ac.id = a.actor_account_id
     where a.workspace_id = ${input.workspaceId}::uuid ${after}
     order by a.created_at desc, a.id desc
     limit ${input.limit}`;
}
