import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import type { Clock } from '../clock.js';
import type { Queryable, Sql } from '../db/connect.js';
import type { Account } from './accounts.js';
import { invalidInput, notFound } from './errors.js';
import { endOtherSessions } from './sessions.js';
import { endUnusedLinks } from './sign-in-links.js';
import { requireUuid } from './validate.js';

/**
 * Console passwords, hashed with argon2id at OWASP's recommended minimum (19 MiB memory, 2
 * passes, 1 lane); the PHC string carries its parameters, so raising them later still verifies
 * old hashes. A password is never logged, stored or returned.
 */
export const MIN_PASSWORD_LENGTH = 10;
/** Upper bound so a huge body cannot make one hash expensive. */
export const MAX_PASSWORD_LENGTH = 1024;
const ARGON2 = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * A hash of a password nobody knows, verified against when the email is unknown, so a wrong
 * email costs the same time as a wrong password (the answer must not tell whether it exists).
 */
let decoy: Promise<string> | undefined;
const decoyHash = () => (decoy ??= hash(randomBytes(32).toString('base64'), ARGON2));

export function requirePassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) {
    throw invalidInput(`the password must be at least ${MIN_PASSWORD_LENGTH} characters long`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw invalidInput(`the password must be at most ${MAX_PASSWORD_LENGTH} characters long`);
  }
  return password;
}

/** The argon2id hash of a new password, after its length is checked (before any transaction: it takes a while). */
export async function hashNewPassword(password: unknown): Promise<string> {
  return hash(requirePassword(password), ARGON2);
}

/**
 * Stores a hashed password in the caller's transaction, ends every unused sign-in and
 * password-reset link of the account and its sessions except `keepSessionId`; not_found for an
 * unknown account. Every way to set a password (a reset, a change in the console, the CLI's
 * `account set-password`) comes through here.
 */
export async function writePassword(
  tx: Queryable,
  input: { accountId: string; passwordHash: string; keepSessionId: string | null; at: Date },
): Promise<number> {
  const rows = await tx`
    update accounts set password_hash = ${input.passwordHash}, password_changed_at = ${input.at}
     where id = ${input.accountId}::uuid
    returning id`;
  if (rows.length === 0) throw notFound(`account ${input.accountId}`);
  await endUnusedLinks(tx, input.accountId);
  return endOtherSessions(tx, { accountId: input.accountId, keepSessionId: input.keepSessionId });
}

/**
 * Sets (or changes) an account's password and ends the account's sessions, except
 * `keepSessionId` (the session that changed it, when changed from the console).
 */
export async function setPassword(
  sql: Sql,
  clock: Clock,
  input: { accountId: string; password: string; keepSessionId?: string | null },
): Promise<{ accountId: string; endedSessions: number }> {
  const accountId = requireUuid(input.accountId, `account ${String(input.accountId)}`);
  const passwordHash = await hashNewPassword(input.password);
  return sql.begin(async (tx) => {
    const endedSessions = await writePassword(tx, { accountId, passwordHash, keepSessionId: input.keepSessionId ?? null, at: clock.now() });
    return { accountId, endedSessions };
  }) as Promise<{ accountId: string; endedSessions: number }>;
}

/** The account whose email and password match, or null; the same time is spent either way. */
export async function verifyPassword(sql: Queryable, email: string, password: string): Promise<Account | null> {
  const [row] =
    email.length <= 254
      ? await sql<(Account & { password_hash: string | null })[]>`
          select id, email, name, password_hash from accounts where lower(email) = lower(${email})`
      : [];
  const stored = row?.password_hash ?? (await decoyHash());
  let matches = false;
  try {
    matches = await verify(stored, password);
  } catch {
    matches = false;
  }
  if (!row?.password_hash || !matches) return null;
  return { id: row.id, email: row.email, name: row.name };
}

/** Whether the current password of an account is `password` (a password change asks for it). */
export async function checkCurrentPassword(sql: Queryable, accountId: string, password: string): Promise<boolean> {
  const [row] = await sql<{ password_hash: string | null }[]>`select password_hash from accounts where id = ${accountId}::uuid`;
  if (!row?.password_hash) return false;
  try {
    return await verify(row.password_hash, password);
  } catch {
    return false;
  }
}
