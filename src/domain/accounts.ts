import type { Clock } from '../clock.js';
import type { Queryable, Sql } from '../db/connect.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { invalidInput, notFound } from './errors.js';
import { requireName } from './names.js';
import { checkOfferDomain, offerDomainToken } from './offer-domain-rules.js';
import {
  requireCurrency,
  requireEmail,
  requireTimeZone,
  requireUuid,
  isUuid,
} from './validate.js';

/** Accounts, workspaces and who may do what in them (memberships: owner / admin / member). */

export {
  MANAGER_ROLES,
  MEMBERSHIP_ROLES,
  membershipRole,
  requireRole,
  requireRoleName,
  requireWorkspace,
  type ActorId,
  type Role,
} from './permissions.js';


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
  const name = requireName(input.name, 'name', 200);
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
  const account = isUuid(idOrEmail)
    ? await accountById(sql, idOrEmail)
    : (await sql<Account[]>`select id, email, name from accounts where lower(email) = lower(${idOrEmail})`)[0];
  if (!account) throw notFound(`account ${idOrEmail}`);
  return account;
}

/**
 * The account of an id the service itself produced (a used sign-in link, an accepted invitation, a
 * password reset); undefined when it is gone, which the caller refuses as it refuses a bad link.
 */
export async function accountById(sql: Queryable, accountId: string): Promise<Account | undefined> {
  const [account] = await sql<Account[]>`select id, email, name from accounts where id = ${accountId}::uuid`;
  return account;
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
  const name = requireName(input.name, 'name', 200);
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



export { addMember, removeMember } from './members.js';

