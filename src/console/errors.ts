import type { Response } from 'express';
import { sendJson } from '../http/respond.js';
import { DomainError } from '../domain/errors.js';

/**
 * The console API's answers in the public API's error shape `{ error: { code, message, param? } }`
 * (console-api.yaml "Errors"), produced only here. Messages say what to do; nothing internal.
 */
export type ConsoleErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'invalid_request'
  | 'limit_reached'
  | 'rate_limited'
  | 'method_not_allowed'
  | 'internal_error';

export const CONSOLE_MESSAGES = {
  unauthorized: 'Sign in to continue.',
  invalid_credentials: 'Email or password is wrong.',
  invalid_link: 'This sign-in link is used, expired or unknown. Ask for a new one.',
  invalid_reset_link: 'This password-reset link is used, expired or unknown. Ask for a new one.',
  invalid_invitation: 'This invitation is used, revoked, expired or unknown. Ask whoever invited you for a new one.',
  forbidden_role: 'Only owners and admins of this workspace can change it.',
  cross_site: 'Cross-site request refused. Send JSON (Content-Type: application/json) from the console itself.',
  not_found: 'Resource not found.',
  rate_limited: 'Too many sign-in attempts. Try again later.',
  internal_error: 'Internal server error.',
  wrong_password: 'The current password is wrong.',
  method_not_allowed: 'Method not allowed on this path; the Allow header lists those that are.',
} as const;

/** Thrown by handlers and helpers; answered by `answerError`. */
export class ConsoleRefusal extends Error {
  override name = 'ConsoleRefusal';
  constructor(
    readonly status: number,
    readonly code: ConsoleErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export const refuse = {
  unauthorized: () => new ConsoleRefusal(401, 'unauthorized', CONSOLE_MESSAGES.unauthorized),
  notFound: () => new ConsoleRefusal(404, 'not_found', CONSOLE_MESSAGES.not_found),
  forbiddenRole: () => new ConsoleRefusal(403, 'forbidden', CONSOLE_MESSAGES.forbidden_role),
  invalid: (message: string, param?: string) => new ConsoleRefusal(400, 'invalid_request', message, param),
};

export function sendConsoleError(res: Response, status: number, code: ConsoleErrorCode, message: string, param?: string): void {
  sendJson(res, status, { error: param === undefined ? { code, message } : { code, message, param } });
}

/**
 * A ConsoleRefusal or a DomainError (the same refusals the CLI prints) as its answer; anything
 * else is rethrown, to be logged and answered with the generic 500.
 */
export function answerError(res: Response, error: unknown, param?: string): void {
  if (error instanceof ConsoleRefusal) return sendConsoleError(res, error.status, error.code, error.message, error.param);
  if (error instanceof DomainError) {
    // The status is the code's own (domain/errors.ts DOMAIN_ERRORS); the body's code is its kind.
    const status = error.httpStatus;
    switch (error.code) {
      // The domain names the unknown thing; the console answers the one body for every 404.
      case 'not_found':
        return sendConsoleError(res, status, 'not_found', CONSOLE_MESSAGES.not_found);
      case 'forbidden':
        return sendConsoleError(res, status, 'forbidden', CONSOLE_MESSAGES.forbidden_role);
      case 'limit_reached':
        return sendConsoleError(res, status, 'limit_reached', sentence(error.message));
      case 'invalid_input':
      case 'invalid_transition':
        return sendConsoleError(res, status, 'invalid_request', sentence(error.message), param);
    }
  }
  throw error;
}

/** Domain messages are CLI lines ("endpoint address refused: ..."); the console shows sentences. */
export function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
