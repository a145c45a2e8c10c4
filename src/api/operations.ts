import type { Request, Response } from 'express';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Context, type Document, type Handler } from 'openapi-backend';
import type { Logger } from '../log.js';
import { admit, Refusal } from './admission/admit.js';
import { firstValues } from './admission/query.js';
import type { RateLimits } from './admission/rate-limits.js';
import { reply } from './errors.js';
import { loadOpenApiDocument } from './openapi-document.js';
import type { ReadDeps } from './read-operation.js';
import { documentHandlers } from './resources/document.js';
import { offerEventHandlers } from './resources/offer-events.js';
import { offerHandlers } from './resources/offers.js';
import { fallbackHandlers } from './resources/protocol.js';
import { workspaceHandlers } from './resources/workspace.js';

/**
 * Routing and validation by operationId on the 3.1 document.
 *
 * openapi-backend validates a document against an OpenAPI 3.0 meta-schema and, when that
 * fails (any 3.1 document with `webhooks` or `type: [x, "null"]`), silently routes nothing.
 * `quick: true` skips that 3.0 check (Redocly lints the document in CI instead) and
 * dereferences our parsed object directly; `strict: true` makes any other problem throw at
 * start. Its default Ajv is draft-07; customizeAjv swaps in Ajv's 2020-12 build so 3.1
 * keywords are enforced, without type coercion: query values stay strings except `limit`,
 * which admission/query.ts turns into a number only when it is one to four digits.
 */
export function createOperations(deps: ReadDeps & { limits: RateLimits; logger: Logger; publicUrl?: string }) {
  const api = new OpenAPIBackend({
    definition: structuredClone(loadOpenApiDocument().document) as unknown as Document,
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

  api.registerSecurityHandler('bearerAuth', (_c: Context, req: Request, res: Response) => admit(req, res, deps.limits));
  api.init();
  // The router rebuilds its operation list (a lodash chain over the document) on every call, and
  // matching calls it twice per request. The document never changes after init, so build it once.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  const declaredQuery = new Map(
    operations.map((op) => [
      op.operationId,
      new Set(((op.parameters ?? []) as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name)),
    ]),
  );

  const handlers: Record<string, Handler> = {
    ...workspaceHandlers(deps),
    ...offerHandlers(deps),
    ...offerEventHandlers(deps),
    ...documentHandlers({ publicUrl: deps.publicUrl }),
  };
  api.register({
    ...handlers,
    ...fallbackHandlers,
    // SPEC.md "Pagination rules" 3: only the matched operation's own query parameters, first value
    // each, go on to validation and the handler; unknown ones are ignored. Validation reads the
    // request object given to handleRequest (see app.ts), so its query is replaced in place.
    postRoutingHandler: (c: Context, _req: Request, res: Response) => {
      if (!c.operation) return;
      const request = res.locals.apiRequest as { query: Record<string, string | number> };
      request.query = firstValues(res.locals.rawQuery as string, declaredQuery.get(c.operation.operationId) ?? new Set());
      c.request.query = request.query as Record<string, string>;
    },
    unauthorizedHandler: (c: Context, _req: Request, res: Response) => {
      const failure = (c.security?.bearerAuth as { error?: unknown } | undefined)?.error;
      if (failure instanceof Refusal) return failure.answer(res);
      // Anything else thrown by admission (e.g. the rate limit store failed) becomes a logged 500.
      throw failure ?? new Error('admission failed without a reason');
    },
    validationFail: (c: Context, _req: Request, res: Response) => {
      reply.invalidParameter(res, firstInvalidParameter(c));
    },
  });

  return { api, handlers };
}

/** The rejected query parameter, in the order the operation declares its parameters. */
function firstInvalidParameter(c: Context): string {
  const failing = new Set(
    (c.validation.errors ?? []).map((error) => {
      const [, where, name] = error.instancePath.split('/');
      if (where === 'query' && name) return name;
      // A `required`/`additionalProperties` error at the query object names it in params.
      return String((error.params as { missingProperty?: string }).missingProperty ?? '');
    }),
  );
  const declared = (c.operation.parameters ?? []) as { name: string; in: string }[];
  const first = declared.find((p) => p.in === 'query' && failing.has(p.name));
  return first?.name ?? [...failing][0] ?? 'query';
}
