import { createHash, randomBytes } from 'node:crypto';
import { MINUTE, type Clock } from '../clock.js';
import type { Queryable } from '../db/connect.js';
import { requireUuid } from './validate.js';
import { notFound } from './errors.js';

/**
 * One-time sign-in links (`<publicUrl>/console/sign-in#token=<token>`): single use, valid 15
 * minutes, stored only as SHA-256 of the token. The token sits in the URL fragment, so it never
 * reaches a server log or a Referer header.
 */
export const SIGN_IN_LINK_TTL_MS = 15 * MINUTE;
const TOKEN_BYTES = 32;

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export function signInLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/console/sign-in#token=${token}`;
}

export async function createSignInLink(
  sql: Queryable,
  clock: Clock,
  input: { accountId: string },
): Promise<{ token: string; expiresAt: Date }> {
  const accountId = requireUuid(input.accountId, `account ${String(input.accountId)}`);
  const token = newToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
  const rows = await sql`
    insert into sign_in_links (token_hash, account_id, created_at, expires_at)
    select ${hashToken(token)}, id, ${now}, ${expiresAt} from accounts where id = ${accountId}::uuid
    returning id`;
  if (rows.length === 0) throw notFound(`account ${accountId}`);
  return { token, expiresAt };
}

/**
 * Uses a link: the account it signs in, or null for an unknown, used or expired token. One
 * statement marks it used, so two requests with the same token cannot both succeed.
 */
export async function useSignInLink(sql: Queryable, clock: Clock, token: string): Promise<string | null> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 256) return null;
  const now = clock.now();
  const [row] = await sql<{ account_id: string }[]>`
    update sign_in_links set used_at = ${now}
     where token_hash = ${hashToken(token)} and used_at is null and expires_at > ${now}
    returning account_id`;
  return row?.account_id ?? null;
}
