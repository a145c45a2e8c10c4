import { parse, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { SESSION_ABSOLUTE_MS } from '../domain/sessions.js';

/**
 * The session cookie (docs/console.md "Sessions": `HttpOnly`, `SameSite=Strict`, `Secure` when
 * the console is served over https, `Path=/console`). The value is the random token; the database
 * keeps only its hash (src/domain/sessions.ts).
 */
export const SESSION_COOKIE = 'offerdesk_session';
const COOKIE_PATH = '/console';

export function sessionToken(req: Request): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  const value = parse(header)[SESSION_COOKIE];
  return value ? value : null;
}

export function setSessionCookie(res: Response, token: string, publicUrl: string): void {
  res.append(
    'Set-Cookie',
    serialize(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: publicUrl.startsWith('https:'),
      path: COOKIE_PATH,
      // The browser may drop it at the absolute expiry; the server decides anyway.
      maxAge: SESSION_ABSOLUTE_MS / 1000,
    }),
  );
}

export function clearSessionCookie(res: Response, publicUrl: string): void {
  res.append(
    'Set-Cookie',
    serialize(SESSION_COOKIE, '', {
      httpOnly: true,
      sameSite: 'strict',
      secure: publicUrl.startsWith('https:'),
      path: COOKIE_PATH,
      expires: new Date(0),
    }),
  );
}
