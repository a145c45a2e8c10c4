import type { Queryable } from '../db/connect.js';
import { requireWorkspace } from './accounts.js';
import { invalidInput } from './errors.js';
import { OFFER_STATUSES, type OfferStatus } from './offer-state.js';

/**
 * What an operator looks up before acting (the CLI's `account list`, `workspace list`, `offer
 * list`): ids next to the names people know. Reads only; no role is needed, as for the other
 * reads of the operator's CLI.
 */

/** `offer list` shows at most this many, newest first; the API pages through all of them. */
export const MAX_LISTED_OFFERS = 1000;
export const DEFAULT_LISTED_OFFERS = 50;

export interface AccountListItem {
  id: string;
  email: string;
  name: string;
  created_at: Date;
}

export async function listAccounts(sql: Queryable): Promise<AccountListItem[]> {
  return sql<AccountListItem[]>`select id, email, name, created_at from accounts order by created_at, email`;
}

export interface WorkspaceListItem {
  id: string;
  name: string;
  timezone: string;
  currency: string;
  owners: string[];
  /** The role of the account given with --as; absent without it. */
  role?: string;
}

/** Every workspace with its owners' emails, or only those of one account, with its role there. */
export async function listWorkspaces(sql: Queryable, input: { accountId?: string } = {}): Promise<WorkspaceListItem[]> {
  const rows = await sql<(WorkspaceListItem & { role: string | null })[]>`
    select w.id, w.name, w.timezone, w.currency,
           coalesce((select array_agg(a.email order by a.email)
                       from memberships m join accounts a on a.id = m.account_id
                      where m.workspace_id = w.id and m.role = 'owner'), '{}') as owners,
           mine.role
      from workspaces w
      left join memberships mine on mine.workspace_id = w.id and mine.account_id = ${input.accountId ?? null}::uuid
     where ${input.accountId ?? null}::uuid is null or mine.account_id is not null
     order by w.created_at, w.id`;
  return rows.map(({ role, ...row }) => (input.accountId ? { ...row, role: role! } : row));
}

export interface OfferListItem {
  id: string;
  status: OfferStatus;
  title: string;
  created_at: Date;
  sent_at: Date | null;
  expires_at: Date | null;
}

export async function listOffers(
  sql: Queryable,
  input: { workspaceId: string; status?: string; limit?: number },
): Promise<OfferListItem[]> {
  const workspace = await requireWorkspace(sql, input.workspaceId);
  if (input.status !== undefined && !(OFFER_STATUSES as readonly string[]).includes(input.status)) {
    throw invalidInput(`status must be one of ${OFFER_STATUSES.join(', ')}, got "${input.status}"`);
  }
  const limit = input.limit ?? DEFAULT_LISTED_OFFERS;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LISTED_OFFERS) {
    throw invalidInput(`limit must be between 1 and ${MAX_LISTED_OFFERS}`);
  }
  return sql<OfferListItem[]>`
    select id, status, title, created_at, sent_at, expires_at
      from offers
     where workspace_id = ${workspace.id}::uuid
       and (${input.status ?? null}::text is null or status = ${input.status ?? null}::text)
     order by created_at desc, id desc
     limit ${limit}`;
}
