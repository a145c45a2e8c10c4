import express, { type NextFunction, type Request, type Response } from 'express';
import type { OpenApiHeaders } from '../http/openapi-router.js';
import { decodablePath, rawQuery } from '../http/query.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import type { TxtResolver } from '../domain/offer-domain.js';
import { coerceError, type Logger } from '../log.js';
import { requestSpan, spanLogger } from '../telemetry/tracing.js';
import { consoleDistDir } from '../paths.js';
import { loadMasterKey } from '../sealing/master-keys.js';
import type { ConsoleDeps } from './context.js';
import { CONSOLE_CURSOR_KEY, loadCursors } from '../http/cursor.js';
import { CONSOLE_MESSAGES, sendConsoleError } from './errors.js';
import { createConsoleOperations } from './operations.js';
import { crossSiteCheck, jsonBody, securityHeaders } from './protection.js';
import { consoleStatic } from './static.js';
import { createSignInThrottle, type SignInThrottle } from './throttle.js';

export const CONSOLE_PATH = '/console';
export const CONSOLE_API_PATH = '/api';

export interface ConsoleOptions {
  sql: Sql;
  config: Config;
  clock: Clock;
  logger: Logger;
  /** Tests pass a throttle with lower limits; otherwise built from config. */
  throttle?: SignInThrottle;
  /** DNS TXT lookups of the offer domain's verification; tests answer them; otherwise the system's resolver. */
  txtResolver?: TxtResolver;
  /** Where the built single-page app is; tests point elsewhere. */
  staticDir?: string;
}

/**
 * Everything under /console: security headers on every answer, the cross-site check and JSON
 * bodies for state-changing requests, the management API at /console/api (console-api.yaml),
 * and the single-page app for every other path.
 */
export async function createConsole(options: ConsoleOptions): Promise<{ router: express.Router; close(): Promise<void> }> {
  const { sql, config, clock, logger } = options;
  const throttle = options.throttle ?? createSignInThrottle(config, logger);
  const mailThrottle = createSignInThrottle(config, logger, 'mail');
  let masterKey: Buffer | undefined;
  const deps: ConsoleDeps = {
    sql,
    clock,
    config,
    logger,
    throttle,
    mailThrottle,
    txtResolver: options.txtResolver,
    cursors: await loadCursors(sql, CONSOLE_CURSOR_KEY),
    // The master key is read (or, in development, created) only when a secret is sealed.
    manage: ({ sealing = false } = {}) => ({
      sql,
      clock,
      config: config.webhooks,
      masterKey: sealing ? (masterKey ??= loadMasterKey(config)) : Buffer.alloc(0),
    }),
  };
  const { api } = createConsoleOperations(deps);

  const router = express.Router();
  router.use(securityHeaders);
  router.use(crossSiteCheck(config));
  router.use(CONSOLE_API_PATH, jsonBody, async (req: Request, res: Response) => {
    res.locals.rawQuery = rawQuery(req.originalUrl).slice(1);
    const consoleRequest = { method: req.method.toLowerCase(), path: decodablePath(req.path), query: {}, headers: req.headers as OpenApiHeaders, body: req.body };
    try {
      await api.handleRequest(consoleRequest, req, res);
    } catch (error) {
      answerUnexpectedError(res, logger, error);
    }
  });
  router.use(consoleStatic(options.staticDir ?? consoleDistDir));
  router.use((_req: Request, res: Response) => sendConsoleError(res, 404, 'not_found', CONSOLE_MESSAGES.not_found));
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => answerUnexpectedError(res, logger, error));
  return { router, close: async () => void (await Promise.all([throttle.close(), mailThrottle.close()])) };
}

/** Logged with its cause, answered with the console API's generic 500 body (nothing internal in it). */
function answerUnexpectedError(res: Response, logger: Logger, error: unknown): void {
  spanLogger(logger, requestSpan(res)).error({ err: coerceError(error), requestId: res.locals.requestId }, 'console request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendConsoleError(res, 500, 'internal_error', CONSOLE_MESSAGES.internal_error);
}
