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
 * The names of this machine's loopback interface as a URL's `hostname` spells them (an IPv6
 * address in brackets): what a browser on the machine itself puts in `Host` and `Origin`.
 */
export const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `Host`: a host name or an IP address (IPv6 in brackets), then an optional port; nothing else. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^:@/\\[\]\s]+)(?::[0-9]{1,5})?$/i;

/**
 * The origins the console answers state-changing requests from (docs/console.md "Sessions"):
 * the public URL's origin (OFFERDESK_PUBLIC_URL); and, when that is on this machine
 * (a loopback name), the same scheme and port under any loopback name, so a browser at
 * http://127.0.0.1:8080 works as one at http://localhost:8080. Unset, the public URL is
 * http://localhost on the port the request came in on (as `serve` prints it, src/server.ts).
 * Never the request's own `Host`: a DNS-rebinding page names its own host there and in `Origin`.
 */
export function consoleOrigins(config: { publicUrl: string; publicUrlSet: boolean }) {
  const configured = new URL(config.publicUrl);
  const loopback = LOOPBACK_NAMES.has(configured.hostname);
  return (origin: string, localPort: number | undefined): boolean => {
    const port = config.publicUrlSet ? configured.port : String(localPort ?? '');
    const own = config.publicUrlSet ? configured.origin : `${configured.protocol}//${configured.hostname}:${port}`;
    if (origin === own) return true;
    if (!loopback) return false;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    return url.origin === origin && url.protocol === configured.protocol && url.port === port && LOOPBACK_NAMES.has(url.hostname);
  };
}

/**
 * Cross-site refusal on every state-changing request, on top of the SameSite=Strict cookie:
 * `Origin` must be one of the console's own origins (consoleOrigins), or, without `Origin`,
 * `Sec-Fetch-Site` must be `same-origin`; and a body must be `application/json`, which no HTML
 * form can send without a CORS preflight.
 */
export function crossSiteCheck(config: { publicUrl: string; publicUrlSet: boolean }) {
  const ownOrigin = consoleOrigins(config);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!STATE_CHANGING.has(req.method)) return next();
    const origin = req.get('origin');
    const sameOrigin = origin !== undefined ? ownOrigin(origin, req.socket.localPort) : req.get('sec-fetch-site') === 'same-origin';
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    const jsonBody = !hasBody || req.is('application/json') === 'application/json';
    if (!sameOrigin || !jsonBody) return sendConsoleError(res, 403, 'forbidden', CONSOLE_MESSAGES.cross_site);
    next();
  };
}

/**
 * Whether a request was addressed to this machine by a loopback name or to the public URL's host
 * (its `Host` header). The development mailbox answers only such requests: a DNS-rebinding page
 * reaches a server on 127.0.0.1 under a host name of its own, and must not read the mailbox.
 */
export function addressedToOwnHost(req: Request, publicUrl: string): boolean {
  const name = HOST_HEADER.exec(req.get('host') ?? '')?.[1]?.toLowerCase();
  return name !== undefined && (LOOPBACK_NAMES.has(name) || name === new URL(publicUrl).hostname);
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
