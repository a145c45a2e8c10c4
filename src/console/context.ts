import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import type { AuditSource } from '../domain/audit.js';
import type { TxtResolver } from '../domain/offer-domain.js';
import type { Session } from '../domain/sessions.js';
import type { Cursors } from '../http/cursor.js';
import type { Logger } from '../log.js';
import type { ManagementDeps } from '../webhooks/management/deps.js';
import type { SignInThrottle } from './throttle.js';
import { tracedDeps, type Span } from '../telemetry/tracing.js';

/** What every console handler may use; built once per process (app.ts). */
export interface ConsoleDeps {
  sql: Sql;
  clock: Clock;
  config: Config;
  logger: Logger;
  cursors: Cursors;
  throttle: SignInThrottle;
  /** Requests for emailed links, counted apart from sign-in attempts (throttle.ts ThrottlePurpose). */
  mailThrottle: SignInThrottle;
  /** Offer-domain verification's DNS lookups; undefined: the system's resolver. */
  txtResolver: TxtResolver | undefined;
  /** Endpoint management deps; `sealing` loads the master key (only adding and rotating need it). */
  manage(options?: { sealing?: boolean }): ManagementDeps;
}

/**
 * The deps of one request. With tracing on and the request kept by the sampler, its statements
 * (endpoint management's too) are children of its span and its log lines carry the trace;
 * otherwise `deps` itself.
 */
export function tracedConsoleDeps(deps: ConsoleDeps, span: Span | undefined): ConsoleDeps {
  const traced = tracedDeps(deps, span);
  if (traced === deps) return deps;
  return { ...traced, manage: (options) => ({ ...deps.manage(options), sql: traced.sql }) };
}

/** One request as a handler sees it. `session` is set for every operation that needs one. */
export interface ConsoleRequest {
  deps: ConsoleDeps;
  c: Context;
  req: Request;
  res: Response;
  session: Session | null;
  /** The audit source of changes made by this request ("console", the client's address). */
  via: AuditSource;
}

/**
 * Handlers by operationId. Each resource module exports its own table (handlers/*.ts); the
 * router merges them (operations.ts CONSOLE_HANDLER_TABLES), so a module adds operations without
 * touching the others.
 */
export type ConsoleHandler = (request: ConsoleRequest) => Promise<void> | void;
export type ConsoleHandlerTable = Record<string, ConsoleHandler>;

/** The session of an operation that requires one (the security handler has already checked it). */
export function signedIn(request: ConsoleRequest): Session {
  if (!request.session) throw new Error(`operation ${request.c.operation?.operationId} ran without a session`);
  return request.session;
}
