import { DAY, type Clock } from '../clock.js';
import type { Queryable, Sql, Tx } from '../db/connect.js';
import { writeAudit, type AuditSource } from './audit.js';
import { forbidden, invalidInput, notFound } from './errors.js';
import { MANAGER_ROLES, requireRole, requireRoleName, requireWorkspace, type Role } from './permissions.js';
import { hashToken, newToken } from './sign-in-links.js';
import { isUuid, requireEmail } from './validate.js';

/**
 * Invitations into a workspace (docs/console.md "Invitations"): owners and admins invite an email
 * address with a role; the invited person gets a mail with a link `<publicUrl>/console/invitation#token=...`
 * and accepting it adds them (making their account first when the address has none). The rules
 * are those of members.ts: an admin never invites an owner nor revokes an owner's invitation.
 * Only SHA-256 of the token is stored, as for sign-in links. Inviting an address again replaces
 * its open invitation (the old link stops working). Every change is audited in its transaction.
 */
export const INVITATION_TTL_MS = 7 * DAY;

export function invitationUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/console/invitation#token=${token}`;
}

export type InvitationStatus = 'pending' | 'expired' | 'accepted' | 'revoked';

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  status: InvitationStatus;
  invited_by: { id: string; email: string; name: string } | null;
  created_at: string;
  expires_at: string;
}

interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  inviter_id: string | null;
  inviter_email: string | null;
  inviter_name: string | null;
}

function toView(row: InvitationRow, now: Date): InvitationView {
  const status: InvitationStatus = row.accepted_at
    ? 'accepted'
    : row.revoked_at
      ? 'revoked'
      : row.expires_at.getTime() <= now.getTime()
        ? 'expired'
        : 'pending';
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status,
    invited_by: row.inviter_id ? { id: row.inviter_id, email: row.inviter_email!, name: row.inviter_name! } : null,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  };
}

async function readInvitation(sql: Queryable, workspaceId: string, invitationId: string): Promise<InvitationRow | undefined> {
  const [row] = await sql<InvitationRow[]>`
    select i.id, i.email, i.role, i.created_at, i.expires_at, i.accepted_at, i.revoked_at,
           a.id as inviter_id, a.email as inviter_email, a.name as inviter_name
      from invitations i left join accounts a on a.id = i.invited_by
     where i.id = ${invitationId}::uuid and i.workspace_id = ${workspaceId}::uuid`;
  return row;
}

export interface CreatedInvitation {
  invitation: InvitationView;
  /** Goes into the invitation mail only: never a log line, an answer or the audit log. */
  token: string;
  workspaceName: string;
}

/**
 * Invites `email` into the workspace with `role`, in the caller's transaction (the mail is
 * written to the mail outbox in the same one). An address that already belongs to a member is
 * refused; an open invitation of the same address is revoked and replaced (an owner's only by
 * an owner).
 */
export async function createInvitation(
  tx: Tx,
  clock: Clock,
  input: { workspaceId: string; actorId: string; via: AuditSource; email: string; role: Role },
): Promise<CreatedInvitation> {
  const workspace = await requireWorkspace(tx, input.workspaceId);
  // The same lock as membership changes (members.ts), so an invitation and a role change of one
  // workspace happen one after the other.
  await tx`select 1 from workspaces where id = ${workspace.id}::uuid for update`;
  const actorRole = await requireRole(tx, { workspaceId: workspace.id, accountId: input.actorId, roles: MANAGER_ROLES });
  const role = requireRoleName(input.role);
  const email = requireEmail(input.email.trim(), 'email');
  if (actorRole === 'admin' && role === 'owner') {
    throw forbidden(`an admin cannot invite an owner; ask an owner of workspace ${workspace.id}`);
  }
  const [member] = await tx`
    select 1 from memberships m join accounts a on a.id = m.account_id
     where m.workspace_id = ${workspace.id}::uuid and lower(a.email) = lower(${email})`;
  if (member) throw invalidInput(`${email} is already a member of this workspace; change their role in the list of members`);
  // Replacing an open invitation revokes it, so the rule of revokeInvitation holds here too: an
  // admin never ends an owner's invitation (docs/console.md "Who may do what").
  const [open] = await tx<{ role: Role }[]>`
    select role from invitations
     where workspace_id = ${workspace.id}::uuid and lower(email) = lower(${email}) and accepted_at is null and revoked_at is null`;
  if (actorRole === 'admin' && open?.role === 'owner') {
    throw forbidden(`an admin cannot replace an owner's invitation; ask an owner of workspace ${workspace.id}`);
  }
  const now = clock.now();
  const replaced = await tx`
    update invitations set revoked_at = ${now}
     where workspace_id = ${workspace.id}::uuid and lower(email) = lower(${email}) and accepted_at is null and revoked_at is null
    returning id`;
  const token = newToken();
  const [row] = await tx<{ id: string }[]>`
    insert into invitations (workspace_id, email, role, token_hash, invited_by, created_at, expires_at)
    values (${workspace.id}::uuid, ${email}, ${role}, ${hashToken(token)}, ${input.actorId}::uuid, ${now},
            ${new Date(now.getTime() + INVITATION_TTL_MS)})
    returning id`;
  await writeAudit(tx, {
    workspaceId: workspace.id,
    actorId: input.actorId,
    via: input.via,
    action: 'invitation.created',
    target: { type: 'invitation', id: row!.id },
    details: { email, role, replaced: replaced.length },
    at: now,
  });
  const invitation = toView((await readInvitation(tx, workspace.id, row!.id))!, now);
  return { invitation, token, workspaceName: workspace.name };
}

/**
 * Revokes an open (pending or expired) invitation: its link stops working. Revoking a revoked
 * one answers it unchanged; an accepted one is refused (remove the member instead).
 */
export async function revokeInvitation(
  sql: Sql,
  clock: Clock,
  input: { workspaceId: string; invitationId: string; actorId: string; via: AuditSource },
): Promise<InvitationView> {
  return sql.begin(async (tx) => {
    const workspace = await requireWorkspace(tx, input.workspaceId);
    const actorRole = await requireRole(tx, { workspaceId: workspace.id, accountId: input.actorId, roles: MANAGER_ROLES });
    const missing = `invitation ${input.invitationId}`;
    if (!isUuid(input.invitationId)) throw notFound(missing);
    const row = await readInvitation(tx, workspace.id, input.invitationId);
    if (!row) throw notFound(missing);
    const now = clock.now();
    if (row.accepted_at) throw invalidInput('this invitation was accepted; remove the member instead');
    if (row.revoked_at) return toView(row, now);
    if (actorRole === 'admin' && row.role === 'owner') {
      throw forbidden(`an admin cannot revoke an owner's invitation; ask an owner of workspace ${workspace.id}`);
    }
    await tx`update invitations set revoked_at = ${now} where id = ${row.id}::uuid`;
    await writeAudit(tx, {
      workspaceId: workspace.id,
      actorId: input.actorId,
      via: input.via,
      action: 'invitation.revoked',
      target: { type: 'invitation', id: row.id },
      details: { email: row.email, role: row.role },
      at: now,
    });
    return toView({ ...row, revoked_at: now }, now);
  }) as Promise<InvitationView>;
}

/** The workspace's open invitations (pending, and expired ones not yet revoked), newest first. */
export async function listInvitations(sql: Queryable, clock: Clock, workspaceId: string): Promise<InvitationView[]> {
  const rows = await sql<InvitationRow[]>`
    select i.id, i.email, i.role, i.created_at, i.expires_at, i.accepted_at, i.revoked_at,
           a.id as inviter_id, a.email as inviter_email, a.name as inviter_name
      from invitations i left join accounts a on a.id = i.invited_by
     where i.workspace_id = ${workspaceId}::uuid and i.accepted_at is null and i.revoked_at is null
     order by i.created_at desc, i.id desc`;
  const now = clock.now();
  return rows.map((row) => toView(row, now));
}
