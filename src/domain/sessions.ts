import { HOUR, MINUTE, type Clock } from '../clock.js';
import type { Queryable, Sql } from '../db/connect.js';
import type { Account } from './accounts.js';
import { writeSignInAudit, type AuditSource, type SignInMethod } from './audit.js';
import { hashToken, newToken } from './sign-in-links.js';

/**
 * Console sessions in PostgreSQL (every API process sees the same ones). The cookie holds a
 * random 32-byte token; only its SHA-256 is stored. A session ends after SESSION_IDLE_MS without
 * use or SESSION_ABSOLUTE_MS after sign-in, whichever comes first, at sign-out, and when the
 * account's password changes (its other sessions).
 */
export const SESSION_IDLE_MS = 2 * HOUR;
export const SESSION_ABSOLUTE_MS = 12 * HOUR;
/** The idle expiry slides forward at most this often, so reads do not write on every request. */
export const SESSION_REFRESH_MS = 1 * MINUTE;

export interface Session {
  id: string;
  account: Account;
}

/** Starts a session and records the sign-in in the audit log of each of the account's workspaces. */
export async function createSession(
  sql: Sql,
  clock: Clock,
  input: { accountId: string; via: AuditSource; userAgent: string | null; method: SignInMethod },
): Promise<{ token: string; sessionId: string }> {
  const token = newToken();
  const now = clock.now();
  const idle = new Date(now.getTime() + SESSION_IDLE_MS);
  const absolute = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  const userAgent = input.userAgent ? input.userAgent.slice(0, 1000) : null;
  return sql.begin(async (tx) => {
    const [row] = await tx<{ id: string }[]>`
      insert into console_sessions (token_hash, account_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at, ip, user_agent)
      values (${hashToken(token)}, ${input.accountId}::uuid, ${now}, ${now}, ${idle}, ${absolute}, ${input.via.ip}::inet, ${userAgent})
      returning id`;
    await writeSignInAudit(tx, { accountId: input.accountId, via: input.via, method: input.method, at: now });
    return { token, sessionId: row!.id };
  }) as Promise<{ token: string; sessionId: string }>;
}

/** The live session of a cookie value, or null; slides the idle expiry (never past the absolute one). */
export async function lookupSession(sql: Queryable, clock: Clock, token: string): Promise<Session | null> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 256) return null;
  const now = clock.now();
  const [row] = await sql<{ id: string; last_seen_at: Date; account_id: string; email: string; name: string }[]>`
    select s.id, s.last_seen_at, a.id as account_id, a.email, a.name
      from console_sessions s
      join accounts a on a.id = s.account_id
     where s.token_hash = ${hashToken(token)} and s.idle_expires_at > ${now} and s.absolute_expires_at > ${now}`;
  if (!row) return null;
  if (now.getTime() - row.last_seen_at.getTime() >= SESSION_REFRESH_MS) {
    await sql`
      update console_sessions
         set last_seen_at = ${now},
             idle_expires_at = least(${new Date(now.getTime() + SESSION_IDLE_MS)}::timestamptz, absolute_expires_at)
       where id = ${row.id}::uuid`;
  }
  return { id: row.id, account: { id: row.account_id, email: row.email, name: row.name } };
}

export async function endSession(sql: Queryable, sessionId: string): Promise<void> {
  await sql`delete from console_sessions where id = ${sessionId}::uuid`;
}

/** Ends every session of the account except `keepSessionId`; returns how many ended. */
export async function endOtherSessions(
  sql: Queryable,
  input: { accountId: string; keepSessionId: string | null },
): Promise<number> {
  const rows = await sql`
    delete from console_sessions
     where account_id = ${input.accountId}::uuid
       and (${input.keepSessionId}::uuid is null or id <> ${input.keepSessionId}::uuid)
    returning id`;
  return rows.length;
}

/** Expired sessions and links are useless; the worker's retention job may call this. */
export async function deleteExpiredSessions(sql: Queryable, clock: Clock): Promise<number> {
  const now = clock.now();
  const rows = await sql`
    delete from console_sessions where absolute_expires_at <= ${now} or idle_expires_at <= ${now} returning id`;
  await sql`delete from sign_in_links where expires_at <= ${now}`;
  return rows.length;
}
