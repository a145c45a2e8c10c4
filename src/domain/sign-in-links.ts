import { createHash, randomBytes } from 'node:crypto';
import { MINUTE, type Clock } from '../clock.js';
import type { Queryable } from '../db/connect.js';
import { requireUuid } from './validate.js';
import { notFound } from './errors.js';

/**
 * One-time account links: sign-in links (`<publicUrl>/console/sign-in#token=<token>`) and
 * password-reset links (`<publicUrl>/console/reset-password#token=<token>`). Single use, valid 15
 * minutes, stored only as SHA-256 of the token. The token sits in the URL fragment, so it never
 * reaches a server log or a Referer header. A link of one purpose is refused for the other.
 */
export const SIGN_IN_LINK_TTL_MS = 15 * MINUTE;
/** That lifetime in words ("15 minutes"), for every text that tells a person how long a link works. */
export const SIGN_IN_LINK_LIFETIME = `${SIGN_IN_LINK_TTL_MS / MINUTE} minutes`;
const TOKEN_BYTES = 32;
/** Longer than any token this service makes; a longer one is refused before it is hashed. */
export const MAX_TOKEN_LENGTH = 256;

export type LinkPurpose = 'sign_in' | 'password_reset';

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export function signInLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/console/sign-in#token=${token}`;
}

export function passwordResetUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/console/reset-password#token=${token}`;
}

export async function createSignInLink(
  sql: Queryable,
  clock: Clock,
  input: { accountId: string; purpose?: LinkPurpose },
): Promise<{ token: string; expiresAt: Date }> {
  const accountId = requireUuid(input.accountId, `account ${String(input.accountId)}`);
  const token = newToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
  const rows = await sql`
    insert into sign_in_links (token_hash, account_id, created_at, expires_at, purpose)
    select ${hashToken(token)}, id, ${now}, ${expiresAt}, ${input.purpose ?? 'sign_in'} from accounts where id = ${accountId}::uuid
    returning id`;
  if (rows.length === 0) throw notFound(`account ${accountId}`);
  return { token, expiresAt };
}

/**
 * A link for the account of an email address, or null when no account has it. One statement
 * either way, so asking for an unknown address costs what asking for a known one does (no
 * enumeration by timing, docs/console.md "Signing in").
 */
export async function createLinkForEmail(
  sql: Queryable,
  clock: Clock,
  input: { email: string; purpose: LinkPurpose },
): Promise<{ token: string; expiresAt: Date; account: { id: string; email: string; name: string } } | null> {
  const token = newToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
  const [row] = await sql<{ id: string; email: string; name: string }[]>`
    with account as (select id, email, name from accounts where lower(email) = lower(${input.email.trim()}))
    insert into sign_in_links (token_hash, account_id, created_at, expires_at, purpose)
    select ${hashToken(token)}, id, ${now}, ${expiresAt}, ${input.purpose} from account
    returning account_id as id, (select email from account), (select name from account)`;
  return row ? { token, expiresAt, account: row } : null;
}

/**
 * Uses a link: the account it signs in, or null for an unknown, used or expired token. One
 * statement marks it used, so two requests with the same token cannot both succeed.
 */
export async function useSignInLink(
  sql: Queryable,
  clock: Clock,
  token: string,
  purpose: LinkPurpose = 'sign_in',
): Promise<string | null> {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
  const now = clock.now();
  const [row] = await sql<{ account_id: string }[]>`
    update sign_in_links set used_at = ${now}
     where token_hash = ${hashToken(token)} and purpose = ${purpose} and used_at is null and expires_at > ${now}
    returning account_id`;
  return row?.account_id ?? null;
}

/**
 * Ends every unused link of the account, sign-in and password-reset alike, in the caller's
 * transaction: a new password must leave no way in that was handed out before it (docs/console.md
 * "Sessions"). Returns how many links ended.
 */
export async function endUnusedLinks(sql: Queryable, accountId: string): Promise<number> {
  const rows = await sql`delete from sign_in_links where account_id = ${accountId}::uuid and used_at is null returning id`;
  return rows.length;
}
