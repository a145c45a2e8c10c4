import type { Request, Response } from 'express';
import { hashApiKeyText } from '../../domain/api-key-format.js';
import { reply } from '../errors.js';
import { ipLimitKey } from '../../http/client-ip.js';
import { presentedKey } from './authorization.js';
import { MAX_QUERY_LENGTH, rawQuery } from '../../http/query.js';
import type { RateLimits, WindowState } from './rate-limits.js';
import { countRateLimited } from '../../telemetry/metrics.js';

/**
 * Steps 1 to 4 of openapi.yaml "Order of checks", run as
 * openapi-backend's security handler for `bearerAuth` (so operations with `security: []`,
 * such as OPTIONS, 405 answers and /openapi.json, skip them):
 *   1. per-IP limit (429, no RateLimit-* headers)
 *   2. query string over 1024 characters (400, no RateLimit-* headers)
 *   3. Authorization missing or key of the wrong form (401, key not looked up, no RateLimit-*)
 *   4. per-key limit (429 with RateLimit-* and Retry-After)
 * From step 4 on, every answer carries the per-key RateLimit-* headers (openapi.yaml "Limits").
 * Steps 5 (parameters), 6 (key lookup) and 7 (resource) follow in validation and the handler.
 */
export interface Admission {
  keyHash: Buffer;
}

/**
 * A request stopped by steps 1-4. Thrown, because openapi-backend counts any value a security
 * handler returns as authorized and stores a thrown one as `{ error }`.
 */
export class Refusal {
  constructor(readonly answer: (res: Response) => void) {}
}

export async function admit(req: Request, res: Response, limits: RateLimits): Promise<Admission> {
  // The address the request log read for this request (src/service/request-log.ts): req.ip.
  const ip = await limits.consumeIp(ipLimitKey((res.locals.clientIp as string | undefined) ?? req.ip));
  if (!ip.allowed) {
    countRateLimited('ip');
    return refused((r) => reply.rateLimited(r, ip.resetSeconds));
  }

  if (rawQuery(req.originalUrl).length > MAX_QUERY_LENGTH) return refused((r) => reply.queryTooLong(r));

  const key = presentedKey(req.headers.authorization);
  if (key === null) return refused((r) => reply.unauthorized(r));

  // The limiter store sees the key's SHA-256 (as stored in api_keys), never the key itself.
  const keyHashText = hashApiKeyText(key);
  const keyHash = Buffer.from(keyHashText, 'base64url');
  const window = await limits.consumeKey(keyHashText);
  setRateHeaders(res, window);
  if (!window.allowed) {
    countRateLimited('key');
    return refused((r) => reply.rateLimited(r, window.resetSeconds));
  }
  return { keyHash };
}

function refused(answer: (res: Response) => void): never {
  throw new Refusal(answer);
}

function setRateHeaders(res: Response, window: WindowState): void {
  res.setHeader('RateLimit-Limit', String(window.limit));
  res.setHeader('RateLimit-Remaining', String(window.remaining));
  res.setHeader('RateLimit-Reset', String(window.resetSeconds));
}
