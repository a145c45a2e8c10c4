import type { Request, Response } from 'express';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Context, type Document, type Handler } from 'openapi-backend';
import { firstValues } from './query.js';
import { nameRequestSpan } from '../telemetry/tracing.js';

/** Node's request headers as openapi-backend types them (Node never sets a header to undefined). */
export type OpenApiHeaders = Record<string, string | string[]>;

/**
 * Routing and validation by operationId on a 3.1 document: the one setup of the public API
 * (openapi.yaml) and the console (console-api.yaml).
 *
 * openapi-backend validates a document against an OpenAPI 3.0 meta-schema and, when that
 * fails (any 3.1 document with `webhooks` or `type: [x, "null"]`), silently routes nothing.
 * `quick: true` skips that 3.0 check (Redocly lints the documents in CI instead) and
 * dereferences our parsed object directly; `strict: true` makes any other problem throw at
 * start. Its default Ajv is draft-07; customizeAjv swaps in Ajv's 2020-12 build so 3.1
 * keywords are enforced, without type coercion: query values stay strings except `limit`,
 * which http/query.ts turns into a number only when it is one to four digits.
 */
export function createOpenApiRouter(definition: object, security: Record<string, Handler>) {
  const api = new OpenAPIBackend({
    definition: structuredClone(definition) as unknown as Document,
    apiRoot: '/',
    quick: true,
    strict: true,
    ignoreTrailingSlashes: false,
    customizeAjv: (_ajv, ajvOpts) => {
      const ajv = new Ajv2020.default({ ...ajvOpts, coerceTypes: false, strict: false, allErrors: true });
      addFormats.default(ajv);
      return ajv as never;
    },
  });
  for (const [scheme, handler] of Object.entries(security)) api.registerSecurityHandler(scheme, handler);
  api.init();
  // The router rebuilds its operation list (a lodash chain over the document) on every call, and
  // matching calls it twice per request. The document never changes after init, so build it once.
  // (patches/openapi-backend+5.21.2.patch likewise compiles each path template's RegExp and
  // parameter parser once, where matching and parsing compiled them on every request, and makes
  // each parse's objects without lodash's generic copies and without spreads that V8 builds the
  // slow way: the same results; patches/README.md has what it saves.)
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  const declaredQuery = new Map(
    operations.map((op) => [
      op.operationId,
      new Set(((op.parameters ?? []) as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name)),
    ]),
  );

  // The request each call handed over, by the response it came with (handleRequest(request, req, res)).
  const handedOver = new WeakMap<object, { query?: unknown }>();
  const handle = api.handleRequest.bind(api);
  api.handleRequest = (request, ...args: unknown[]) => {
    const res = args[1];
    if (typeof res === 'object' && res !== null) handedOver.set(res, request);
    return handle(request, ...args);
  };

  /**
   * openapi.yaml "Pagination": only the matched operation's own query parameters, first value
   * each, go on to validation and the handler; unknown ones are ignored. They are taken from the
   * raw query string app.ts keeps in `res.locals.rawQuery`, and set both on the request as parsed
   * after routing (`c.request`, what the handler reads) and on the request handed to
   * handleRequest, which openapi-backend parses again to validate it.
   */
  const ownQueryOnly: Handler = (c: Context, req: Request, res: Response) => {
    if (!c.operation) return;
    // The route of the request's metrics (service/request-log.ts): a closed set, never the path.
    res.locals.route = c.operation.operationId;
    // The request's server span is named by its operation (tracing on; otherwise a no-op).
    nameRequestSpan(req, res, c.operation.operationId ?? c.operation.path, c.operation.path);
    const own = firstValues(res.locals.rawQuery as string, declaredQuery.get(c.operation.operationId) ?? new Set());
    c.request.query = own as Record<string, string>;
    const handed = handedOver.get(res);
    if (handed) handed.query = own;
  };

  return { api, ownQueryOnly };
}
