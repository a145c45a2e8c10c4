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
  // parameter parser once, where matching and parsing compiled them on every request; parses a
  // routed request once where it parsed it three times: before routing, after it, and again to
  // validate it; and makes the objects of each request without lodash's generic copies and
  // without spreads that V8 builds the slow way: the same results, a third of the time.)
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  const declaredQuery = new Map(
    operations.map((op) => [
      op.operationId,
      new Set(((op.parameters ?? []) as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name)),
    ]),
  );

  /**
   * SPEC.md "Pagination rules" 3: only the matched operation's own query parameters, first value
   * each, go on to validation and the handler; unknown ones are ignored. Both read the request as
   * parsed after routing (`c.request`: patches/openapi-backend+5.21.2.patch has validation reuse
   * that parse), so its query is replaced there, from the raw query string app.ts keeps in
   * `res.locals.rawQuery`.
   */
  const ownQueryOnly: Handler = (c: Context, req: Request, res: Response) => {
    if (!c.operation) return;
    // The request's server span is named by its operation (tracing on; otherwise a no-op).
    nameRequestSpan(req, res, c.operation.operationId ?? c.operation.path, c.operation.path);
    const own = firstValues(res.locals.rawQuery as string, declaredQuery.get(c.operation.operationId) ?? new Set());
    c.request.query = own as Record<string, string>;
  };

  return { api, ownQueryOnly };
}
