import type { Clock } from '../clock.js';
import type { Queryable, Sql } from '../db/connect.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { writeAudit } from './audit.js';
import { invalidInput } from './errors.js';
import type { Role } from './permissions.js';
import { hashToken, MAX_TOKEN_LENGTH } from './sign-in-links.js';
import { requireName } from './names.js';

/**
 * Accepting an invitation (invitations.ts) with the token of its mail. The mail reached the
 * address, so the link proves control of it as a sign-in link does: an address with an account
 * is signed in and added; an address without one gets an account, with the name and password
 * the person chooses on the invitation page (afterwards they sign in with it, or by emailed link).
 * The token works once, until the invitation expires or is revoked.
 */

export interface InvitationPreview {
  workspace_name: string;
  email: string;
  role: Role;
  invited_by: string | null;
  /** Whether the address has an account already (then no name or password is asked for). */
  has_account: boolean;
}

interface OpenInvitation {
  id: string;
  workspace_id: string;
  workspace_name: string;
  email: string;
  role: Role;
  inviter_name: string | null;
  account_id: string | null;
}

async function openInvitation(sql: Queryable, clock: Clock, token: string, lock: boolean): Promise<OpenInvitation | null> {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
  const [row] = await sql<OpenInvitation[]>`
    select i.id, i.workspace_id, w.name as workspace_name, i.email, i.role, inviter.name as inviter_name, account.id as account_id
      from invitations i
      join workspaces w on w.id = i.workspace_id
      left join accounts inviter on inviter.id = i.invited_by
      left join accounts account on lower(account.email) = lower(i.email)
     where i.token_hash = ${hashToken(token)} and i.accepted_at is null and i.revoked_at is null and i.expires_at > ${clock.now()}
     ${lock ? sql`for update of i` : sql``}`;
  return row ?? null;
}

/** What the invitation page shows before accepting; null for an unknown, used, revoked or expired token. */
export async function previewInvitation(sql: Queryable, clock: Clock, token: string): Promise<InvitationPreview | null> {
  const row = await openInvitation(sql, clock, token, false);
  if (!row) return null;
  return {
    workspace_name: row.workspace_name,
    email: row.email,
    role: row.role,
    invited_by: row.inviter_name,
    has_account: row.account_id !== null,
  };
}

export interface AcceptedInvitation {
  accountId: string;
  workspaceId: string;
  createdAccount: boolean;
}

/**
 * Accepts an invitation: finds or makes the account, adds it to the workspace with the invited
 * role (an account that became a member meanwhile keeps its role), marks the invitation used, and
 * audits it. `newAccount` (name and the argon2id hash of the chosen password) is needed only when
 * the address has no account. Null for a token that cannot be used.
 */
export async function acceptInvitation(
  sql: Sql,
  clock: Clock,
  input: { token: string; ip: string | null; label: string; newAccount?: { name: unknown; passwordHash: string | null } },
): Promise<AcceptedInvitation | null> {
  try {
    return (await sql.begin(async (tx) => {
      const invitation = await openInvitation(tx, clock, input.token, true);
      if (!invitation) return null;
      const now = clock.now();
      let accountId = invitation.account_id;
      if (accountId === null) {
        const name = requireName(input.newAccount?.name, 'name', 200).trim();
        if (name.length === 0) throw invalidInput('name must be 1 to 200 characters long');
        const passwordHash = input.newAccount?.passwordHash;
        if (!passwordHash) throw invalidInput('choose a password for your new account');
        const [account] = await tx<{ id: string }[]>`
          insert into accounts (email, name, created_at, password_hash, password_changed_at)
          values (${invitation.email}, ${name}, ${now}, ${passwordHash}, ${now})
          returning id`;
        accountId = account!.id;
      }
      const added = await tx`
        insert into memberships (workspace_id, account_id, role, created_at)
        values (${invitation.workspace_id}::uuid, ${accountId}::uuid, ${invitation.role}, ${now})
        on conflict (workspace_id, account_id) do nothing
        returning role`;
      await tx`update invitations set accepted_at = ${now}, accepted_by = ${accountId}::uuid where id = ${invitation.id}::uuid`;
      const via = { label: input.label, ip: input.ip };
      const target = { type: 'account', id: accountId };
      await writeAudit(tx, {
        workspaceId: invitation.workspace_id,
        actorId: accountId,
        via,
        action: 'invitation.accepted',
        target: { type: 'invitation', id: invitation.id },
        details: { email: invitation.email, role: invitation.role },
        at: now,
      });
      if (added.length > 0) {
        await writeAudit(tx, {
          workspaceId: invitation.workspace_id,
          actorId: accountId,
          via,
          action: 'member.added',
          target,
          details: { role: invitation.role, invitation_id: invitation.id },
          at: now,
        });
      }
      return { accountId, workspaceId: invitation.workspace_id, createdAccount: invitation.account_id === null };
    })) as AcceptedInvitation | null;
  } catch (error) {
    // The address got an account between the read and the insert (it signed up through another
    // invitation at the same moment): the person tries again and is then signed in to it.
    if (isUniqueViolation(error, 'accounts_email_key')) throw invalidInput('an account for this address was just created; open the link again');
    throw error;
  }
}
