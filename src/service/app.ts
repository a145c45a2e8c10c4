import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import type { TxtResolver } from '../domain/offer-domain.js';
import type { ServerClasses } from '../http-server.js';
import { CONSOLE_PATH, createConsole } from '../console/app.js';
import { coerceError, type Logger } from '../log.js';
import { docsDir } from '../paths.js';
import type { OpenApiHeaders } from '../http/openapi-router.js';
import { decodablePath, rawQuery } from '../http/query.js';
import { createRateLimits, type RateLimits } from '../api/admission/rate-limits.js';
import { API_CURSOR_KEY, loadCursors } from '../http/cursor.js';
import { API_BASE_PATH } from '../http/openapi-document.js';
import { reply } from '../api/errors.js';
import { createOperations } from '../api/operations.js';
import { probePostgres, readinessHandler, type WorkerProgress } from './readiness.js';
import { sendJson } from '../http/respond.js';
import { requestClasses } from './request-classes.js';
import { requestLog, responseDeadline } from './request-log.js';
import { requestSpan, spanLogger } from '../telemetry/tracing.js';

export interface AppDeps {
  sql: Sql;
  config: Config;
  clock: Clock;
  logger: Logger;
  /** Injected by tests that need to share or inspect the limiter; otherwise built from config. */
  limits?: RateLimits;
  /** The webhook worker of this process for /readyz, looked up per request (it starts later). */
  worker?: () => WorkerProgress | undefined;
  /** The offer domain's DNS TXT lookups; tests answer them, otherwise the system's resolver. */
  txtResolver?: TxtResolver;
}

/**
 * The HTTP service: /api/v1 routed by openapi-backend, liveness (/healthz) and readiness (/readyz)
 * outside it, and 404 for everything else. No CORS middleware anywhere (openapi.yaml "Scope").
 */
export async function createApp(deps: AppDeps): Promise<{ app: express.Express; classes: ServerClasses; close(): Promise<void> }> {
  const { sql, config, clock, logger } = deps;
  const limits = deps.limits ?? createRateLimits(config, logger);
  const cursors = await loadCursors(sql, API_CURSOR_KEY);
  const publicUrl = config.publicUrlSet ? config.publicUrl : undefined;
  const { api } = createOperations({ sql, clock, cursors, limits, logger, publicUrl });
  const consoleApp = await createConsole({ sql, config, clock, logger, txtResolver: deps.txtResolver });

  const app = express();
  // The server makes its requests and responses with these (src/server.ts, request-classes.ts).
  const classes = requestClasses(app);
  app.disable('x-powered-by');
  // No ETag and no conditional 304s: every answer is computed fresh (Cache-Control: no-store).
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  // The base path and every path under it match exactly: `/API/V1/workspace` is a path that does
  // not exist (openapi.yaml "Methods": 404 for every method), not another spelling of the API.
  app.set('case sensitive routing', true);
  // Every request's id, log line and (tracing on) server span.
  app.use(requestLog(logger, config.trustProxy !== false));

  // The API comes first, in one layer with its deadline: each layer of express's router that a
  // request passes costs it the layer's matching and dispatch, and nearly every request is the API's.
  const underDeadline = responseDeadline(config.http.responseDeadlineMs, logger);
  app.use(API_BASE_PATH, (req: Request, res: Response) => {
    underDeadline(req, res);
    // The query is filled in after routing, from the raw string (operations.ts, postRoutingHandler).
    res.locals.rawQuery = rawQuery(req.originalUrl).slice(1);
    const apiRequest = { method: routedMethod(req.method), path: decodablePath(req.path), query: {}, headers: req.headers as OpenApiHeaders };
    // Not returned: Express would attach a handler of its own to the promise.
    api.handleRequest(apiRequest, req, res).catch((error: unknown) => answerUnexpectedError(res, logger, error));
  });

  // The database answers within the probe deadline (src/service/readiness.ts); never waits longer.
  app.get('/healthz', async (_req, res) => {
    const verdict = await probePostgres(sql, logger);
    sendJson(res, verdict === 'ok' ? 200 : 503, { status: verdict === 'ok' ? 'ok' : 'unavailable' });
  });
  app.get(
    '/readyz',
    readinessHandler({ sql, limits, config: config.readiness, logger, worker: deps.worker ?? (() => undefined) }),
  );

  // The API reference rendered from openapi.yaml at build time (`npm run docs`): one static page
  // and the script it needs, nothing from another host; no key, like GET /openapi.json.
  // `/docs` redirects to `/docs/` so the page's relative script address resolves.
  if (!existsSync(join(docsDir, 'index.html'))) logger.warn({ docsDir }, 'no API reference to serve at /docs: run npm run docs');
  app.use('/docs', express.static(docsDir, { redirect: true, index: 'index.html', maxAge: '5m' }));

  // The management console and its API (console-api.yaml), on the same port.
  app.use(CONSOLE_PATH, consoleApp.router);

  app.use((_req: Request, res: Response) => reply.notFound(res));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => answerUnexpectedError(res, logger, error));

  return {
    app,
    classes,
    async close() {
      await limits.close();
      await consoleApp.close();
    },
  };
}

/**
 * openapi.yaml "Methods": "HEAD | Treated exactly like GET (same checks, status, headers) with no body".
 * openapi.yaml describes HEAD in prose, not as operations, so a HEAD request is routed, checked
 * and answered as the path's GET; Node drops the body of a HEAD response and keeps its headers.
 */
function routedMethod(method: string): string {
  return method === 'HEAD' ? 'get' : method.toLowerCase();
}

/** Logged with its cause, answered with the generic 500 body of openapi.yaml "Errors" (nothing internal in it). */
function answerUnexpectedError(res: Response, processLogger: Logger, error: unknown): void {
  const logger = spanLogger(processLogger, requestSpan(res));
  // Answered already (the deadline, usually): the late end of the same request is only logged.
  if (res.writableEnded) {
    logger.warn({ err: coerceError(error), requestId: res.locals.requestId }, 'request failed after its answer was sent');
    return;
  }
  logger.error({ err: coerceError(error), requestId: res.locals.requestId }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  reply.internalError(res);
}
