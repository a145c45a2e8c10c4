import express, { type NextFunction, type Request, type Response } from 'express';
import { CONSOLE_MESSAGES, sendConsoleError } from './errors.js';

/**
 * Protection that applies to every /console request before any routing (docs/console.md "Sessions":
 * security headers, cross-site refusal, JSON-only bodies).
 */

/** No inline script or style, nothing from elsewhere, never inside a frame. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.set('X-Content-Type-Options', 'nosniff');
  res.set('Referrer-Policy', 'same-origin');
  res.set('X-Frame-Options', 'DENY');
  next();
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Management bodies are a few fields; anything larger is refused before it is parsed. */
export const MAX_CONSOLE_REQUEST_BODY_BYTES = 16 * 1024;

/**
 * Cross-site refusal on every state-changing request, on top of the SameSite=Strict cookie:
 * `Origin` must be this server's own origin (the configured public address, or the origin the
 * request was addressed to), or, without `Origin`, `Sec-Fetch-Site` must be `same-origin`; and a
 * body must be `application/json`, which no HTML form can send without a CORS preflight.
 */
export function crossSiteCheck(publicUrl: string) {
  const configured = new URL(publicUrl).origin;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!STATE_CHANGING.has(req.method)) return next();
    const origin = req.get('origin');
    const ownOrigin = `${req.protocol}://${req.get('host') ?? ''}`;
    const sameOrigin =
      origin !== undefined ? origin === configured || origin === ownOrigin : req.get('sec-fetch-site') === 'same-origin';
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    const jsonBody = !hasBody || req.is('application/json') === 'application/json';
    if (!sameOrigin || !jsonBody) return sendConsoleError(res, 403, 'forbidden', CONSOLE_MESSAGES.cross_site);
    next();
  };
}

const parseJson = express.json({ limit: MAX_CONSOLE_REQUEST_BODY_BYTES, type: 'application/json', strict: true });

/** JSON bodies only; a body that is too large or not JSON gets 400 in the error shape. */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  parseJson(req, res, (error?: unknown) => {
    if (!error) return next();
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      return sendConsoleError(res, 400, 'invalid_request', `The body is larger than ${MAX_CONSOLE_REQUEST_BODY_BYTES / 1024} KiB.`);
    }
    if (type === 'entity.parse.failed') return sendConsoleError(res, 400, 'invalid_request', 'The body is not valid JSON.');
    next(error);
  });
}
