import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type Request, type Response } from 'express';
import type { Context } from 'openapi-backend';
import { systemClock } from '../../../src/clock.js';
import { loadConfig, type Config } from '../../../src/config.js';
import { API_BASE_PATH, loadOpenApiDocument } from '../../../src/http/openapi-document.js';
import { createOpenApiRouter, type OpenApiHeaders } from '../../../src/http/openapi-router.js';
import { rawQuery } from '../../../src/http/query.js';
import type { ServerClasses } from '../../../src/http-server.js';
import { createServiceLogger } from '../../../src/log.js';
import { createApp } from '../../../src/service/app.js';
import { requestClasses } from '../../../src/service/request-classes.js';
import { BODY, cannedSql, fixedHeaders } from './fixture.js';

/**
 * The rungs of the ladder, each a request listener that answers GET /api/v1/offers/{id} with the
 * same body and headers (fixture.ts) and /healthz for the orchestrator:
 *   bare     node:http, the answer written directly
 *   express  the same handler mounted in express as the service mounts its API
 *   openapi  plus openapi-backend routing by operationId and validating, with the project's setup
 *   service  the service's own app (src/service/app.ts) on a canned pool: request log, admission
 *            (per-IP and per-key limiter, key form and hash), handler, row mapping, as shipped
 */
export const RUNGS = ['bare', 'express', 'openapi', 'service'] as const;
export type Rung = (typeof RUNGS)[number];

const HEADERS = fixedHeaders(BODY);

function answerFixed(res: ServerResponse): void {
  res.writeHead(200, HEADERS);
  res.end(BODY);
}

function health(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end('{"status":"ok"}');
}

/**
 * A rung's request listener and, for the express rungs, the classes its server makes requests and
 * responses with, as src/server.ts serves the service's app (src/service/request-classes.ts).
 */
export interface RungListener {
  listener: RequestListener;
  classes?: ServerClasses;
}

export async function createRung(rung: Rung, config: Config): Promise<RungListener> {
  switch (rung) {
    case 'bare':
      return { listener: (req: IncomingMessage, res: ServerResponse) => (req.url === '/healthz' ? health(res) : answerFixed(res)) };
    case 'express':
      return expressRung((_req, res) => answerFixed(res));
    case 'openapi':
      return expressRung(openApiHandler());
    case 'service': {
      const { app, classes } = await createApp({ sql: cannedSql(), config, clock: systemClock, logger: createServiceLogger(config) });
      return { listener: app, classes };
    }
  }
}

/** As src/service/app.ts sets express up and mounts the API, without its request log and deadline. */
function expressRung(api: (req: Request, res: Response) => void | Promise<void>): RungListener {
  const app = express();
  const classes = requestClasses(app);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.get('/healthz', (_req, res) => health(res));
  app.use(API_BASE_PATH, api);
  return { listener: app, classes };
}

/**
 * openapi-backend as src/api/operations.ts sets it up on openapi.yaml (http/openapi-router.ts:
 * the 2020-12 Ajv, the operation list built once, only the operation's own query parameters
 * validated), with a security handler that admits every request and getOffer answering the fixed
 * body. The request object is built as app.ts builds it.
 */
function openApiHandler() {
  const keyHash = Buffer.alloc(32, 1);
  const { api, ownQueryOnly } = createOpenApiRouter(loadOpenApiDocument().document, { bearerAuth: () => ({ keyHash }) });
  const fail = (what: string) => (_c: Context, _req: Request, res: Response) => {
    res.writeHead(500).end(what);
  };
  api.register({
    getOffer: (_c: Context, _req: Request, res: Response) => answerFixed(res),
    notFound: fail('notFound'),
    methodNotAllowed: fail('methodNotAllowed'),
    notImplemented: fail('notImplemented'),
    postRoutingHandler: ownQueryOnly,
    unauthorizedHandler: fail('unauthorized'),
    validationFail: fail('validationFail'),
  });
  return async (req: Request, res: Response) => {
    res.locals.rawQuery = rawQuery(req.originalUrl).slice(1);
    await api.handleRequest({ method: req.method.toLowerCase(), path: req.path, query: {}, headers: req.headers as OpenApiHeaders }, req, res);
  };
}

/** The service's configuration as the read bench starts it: in-memory limiter, limits lifted. */
export function rungConfig(port: number): Config {
  const lifted = '1000000000';
  return loadConfig({
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: '',
    REDIS_URL: '',
    OFFERDESK_DEMO_SEED: 'false',
    RATE_LIMIT_PER_KEY: lifted,
    RATE_LIMIT_PER_IP: lifted,
  });
}
