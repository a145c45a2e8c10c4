import type { Response } from 'express';
import type { ErrorBody, ErrorCode } from '../contract.js';
import { sendJson } from '../http/respond.js';

/**
 * openapi.yaml "Error" and "Errors": one body shape (openapi.yaml's `Error`, its codes
 * `ErrorCode`), fixed messages, produced only here.
 */
export type { ErrorCode };

export const MESSAGES = {
  unauthorized: 'Missing or invalid API key.',
  not_found: 'Resource not found.',
  method_not_allowed: 'Method not allowed. This API is read-only.',
  rate_limited: 'Too many requests.',
  internal_error: 'Internal server error.',
  query_too_long: 'Query string too long.',
} as const;

export const invalidParameterMessage = (name: string) => `Invalid value for query parameter "${name}".`;

/** openapi.yaml "Methods": the Allow header of OPTIONS and 405 answers. */
export const ALLOW = 'GET, HEAD, OPTIONS';

function sendError(res: Response, status: number, code: ErrorCode, message: string, param?: string): void {
  const body: ErrorBody = { error: param === undefined ? { code, message } : { code, message, param } };
  sendJson(res, status, body);
}

export const reply = {
  unauthorized(res: Response): void {
    res.set('WWW-Authenticate', 'Bearer');
    sendError(res, 401, 'unauthorized', MESSAGES.unauthorized);
  },
  notFound(res: Response): void {
    sendError(res, 404, 'not_found', MESSAGES.not_found);
  },
  invalidParameter(res: Response, name: string): void {
    sendError(res, 400, 'invalid_request', invalidParameterMessage(name), name);
  },
  queryTooLong(res: Response): void {
    sendError(res, 400, 'invalid_request', MESSAGES.query_too_long);
  },
  methodNotAllowed(res: Response): void {
    res.set('Allow', ALLOW);
    sendError(res, 405, 'method_not_allowed', MESSAGES.method_not_allowed);
  },
  rateLimited(res: Response, retryAfterSeconds: number): void {
    res.set('Retry-After', String(retryAfterSeconds));
    sendError(res, 429, 'rate_limited', MESSAGES.rate_limited);
  },
  /** No detail of the cause ever reaches the body; it is logged by the caller. */
  internalError(res: Response): void {
    sendError(res, 500, 'internal_error', MESSAGES.internal_error);
  },
};
