import type { Clock } from '../clock.js';
import type { Queryable, Sql } from '../db/connect.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { forbidden, invalidInput, notFound } from './errors.js';
import { checkOfferDomain, offerDomainToken } from './offer-domain-rules.js';
import {
  requireCurrency,
  requireEmail,
  requireText,
  requireTimeZone,
  requireUuid,
  isUuid,
} from './validate.js';

/** Accounts, workspaces and who may do what in them (memberships: owner / admin / member). */

export const MEMBERSHIP_ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof MEMBERSHIP_ROLES)[number];
/** SPEC.md "Authentication" 3 and "Webhook endpoint management": owners and admins manage keys and endpoints. */
export const MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];

export interface Account {
  id: string;
  email: string;
  name: string;
}

export async function createAccount(
  sql: Sql,
  clock: Clock,
  input: { email: string; name: string },
): Promise<{ id: string }> {
  const email = requireEmail(input.email, 'email');
  const name = requireText(input.name, 'name', 1, 200);
  try {
    const [row] = await sql<{ id: string }[]>`
      insert into accounts (email, name, created_at) values (${email}, ${name}, ${clock.now()}) returning id`;
    return { id: row!.id };
  } catch (error) {
    if (isUniqueViolation(error, 'accounts_email_key')) throw invalidInput(`an account with email ${email} already exists`);
    throw error;
  }
}

/** An account named by its id or its email (the CLI's `--as` and `--owner`). */
export async function resolveAccount(sql: Queryable, idOrEmail: string): Promise<Account> {
  if (typeof idOrEmail !== 'string' || idOrEmail.length === 0 || idOrEmail.length > 254) {
    throw notFound(`account ${String(idOrEmail)}`);
  }
  const rows = isUuid(idOrEmail)
    ? await sql<Account[]>`select id, email, name from accounts where id = ${idOrEmail}::uuid`
    : await sql<Account[]>`select id, email, name from accounts where lower(email) = lower(${idOrEmail})`;
  if (!rows[0]) throw notFound(`account ${idOrEmail}`);
  return rows[0];
}

export interface CreateWorkspaceInput {
  name: string;
  timezone: string;
  currency: string;
  /** Starts unverified; it counts in the endpoint address rules once verified (offer-domain.ts). */
  offerDomain?: string | null;
  ownerAccountId?: string | null;
  /** Suffixes no offer domain may be under (config `blockedDomainSuffixes`); default: the built-in list. */
  blockedDomainSuffixes?: readonly string[];
}

export async function createWorkspace(sql: Sql, clock: Clock, input: CreateWorkspaceInput): Promise<{ id: string }> {
  const name = requireText(input.name, 'name', 1, 200);
  const timezone = requireTimeZone(input.timezone);
  const currency = requireCurrency(input.currency);
  const offerDomain = input.offerDomain == null ? null : checkOfferDomain(input.offerDomain, input.blockedDomainSuffixes);
  const ownerId = input.ownerAccountId == null ? null : requireUuid(input.ownerAccountId, `account ${input.ownerAccountId}`);
  const now = clock.now();
  try {
    return await sql.begin(async (tx) => {
      if (ownerId) {
        const [owner] = await tx`select 1 from accounts where id = ${ownerId}::uuid`;
        if (!owner) throw notFound(`account ${ownerId}`);
      }
      const [row] = await tx<{ id: string }[]>`
        insert into workspaces (name, timezone, currency, offer_domain, offer_domain_token, created_at)
        values (${name}, ${timezone}, ${currency}, ${offerDomain}, ${offerDomain === null ? null : offerDomainToken()}, ${now})
        returning id`;
      if (ownerId) {
        await tx`
          insert into memberships (workspace_id, account_id, role, created_at)
          values (${row!.id}::uuid, ${ownerId}::uuid, 'owner', ${now})`;
      }
      return { id: row!.id };
    });
  } catch (error) {
    if (isUniqueViolation(error, 'workspaces_offer_domain_key')) {
      throw invalidInput(`offer domain ${offerDomain} is already used by another workspace`);
    }
    throw error;
  }
}

export async function requireWorkspace(sql: Queryable, workspaceId: string): Promise<{ id: string; name: string }> {
  const id = requireUuid(workspaceId, `workspace ${String(workspaceId)}`);
  const [row] = await sql<{ id: string; name: string }[]>`select id, name from workspaces where id = ${id}::uuid`;
  if (!row) throw notFound(`workspace ${workspaceId}`);
  return row;
}

export function requireRoleName(role: unknown): Role {
  if (!MEMBERSHIP_ROLES.includes(role as Role)) throw invalidInput(`role must be one of ${MEMBERSHIP_ROLES.join(', ')}, got "${String(role)}"`);
  return role as Role;
}

export { addMember, removeMember } from './members.js';

/** Who acts: an account (the console, or the CLI with `--as`), or null for the operator (the CLI with `--operator`). */
export type ActorId = string | null;

/**
 * The one permission rule of the console and the CLI (console-api.yaml "Who may do what"; as in
 * SPEC.md "Authentication" 5, another workspace's ID looks like an unknown ID): an account that is
 * not a member of the workspace gets not_found with the words of an unknown ID (`target`, the
 * workspace by default), so nobody learns which workspaces exist; a member without one of `roles`
 * gets forbidden. The operator (null) holds the database's credentials and may do anything; the
 * workspace must exist. Returns the actor's role, 'operator' for the operator.
 */
export async function requireRole(
  sql: Queryable,
  input: { workspaceId: string; accountId: ActorId; roles: readonly Role[]; target?: string },
): Promise<Role | 'operator'> {
  const target = input.target ?? `workspace ${String(input.workspaceId)}`;
  if (!isUuid(input.workspaceId)) throw notFound(target);
  if (input.accountId === null) {
    const [ws] = await sql`select 1 from workspaces where id = ${input.workspaceId}::uuid`;
    if (!ws) throw notFound(target);
    return 'operator';
  }
  const accountId = requireUuid(input.accountId, `account ${String(input.accountId)}`);
  const role = await membershipRole(sql, { workspaceId: input.workspaceId, accountId });
  if (!role) throw notFound(target);
  if (!input.roles.includes(role)) {
    throw forbidden(`account ${accountId} is ${role} of workspace ${input.workspaceId}; this needs ${input.roles.join(' or ')}`);
  }
  return role;
}

/** The account's role in the workspace, null when it is not a member (or an ID has the wrong form). */
export async function membershipRole(sql: Queryable, input: { workspaceId: string; accountId: string }): Promise<Role | null> {
  if (!isUuid(input.workspaceId) || !isUuid(input.accountId)) return null;
  const [row] = await sql<{ role: Role }[]>`
    select role from memberships where workspace_id = ${input.workspaceId}::uuid and account_id = ${input.accountId}::uuid`;
  return row?.role ?? null;
}
