import type { Clock } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { hashNewPassword, writePassword } from './passwords.js';
import { useSignInLink } from './sign-in-links.js';

/**
 * A password reset by emailed link (docs/console.md "Signing in"): the link's token (single use,
 * 15 minutes, purpose `password_reset`) lets its holder set a new password, and every session of
 * the account ends (whoever was signed in elsewhere, perhaps with the forgotten password, is out).
 * The new password is checked before the token is used, so a too-short one leaves the link valid.
 * Returns the account, or null for an unknown, used or expired token.
 */
export async function resetPassword(
  sql: Sql,
  clock: Clock,
  input: { token: string; password: string },
): Promise<{ accountId: string; endedSessions: number } | null> {
  const passwordHash = await hashNewPassword(input.password);
  return sql.begin(async (tx) => {
    const accountId = await useSignInLink(tx, clock, input.token, 'password_reset');
    if (!accountId) return null;
    const endedSessions = await writePassword(tx, { accountId, passwordHash, keepSessionId: null, at: clock.now() });
    return { accountId, endedSessions };
  }) as Promise<{ accountId: string; endedSessions: number } | null>;
}
