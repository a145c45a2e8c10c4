import type { Request, Response } from 'express';
import type { Context, Handler } from 'openapi-backend';
import { createOpenApiRouter } from '../http/openapi-router.js';
import type { Logger } from '../log.js';
import { admit, Refusal } from './admission/admit.js';
import type { RateLimits } from './admission/rate-limits.js';
import { reply } from './errors.js';
import { loadOpenApiDocument } from '../http/openapi-document.js';
import type { ReadDeps } from './read-operation.js';
import { documentHandlers } from './resources/document.js';
import { offerEventHandlers } from './resources/offer-events.js';
import { offerHandlers } from './resources/offers.js';
import { fallbackHandlers } from './resources/protocol.js';
import { workspaceHandlers } from './resources/workspace.js';

/** Routing and validation by operationId on openapi.yaml (http/openapi-router.ts). */
export function createOperations(deps: ReadDeps & { limits: RateLimits; logger: Logger; publicUrl?: string }) {
  const { api, ownQueryOnly } = createOpenApiRouter(loadOpenApiDocument().document, {
    bearerAuth: (_c: Context, req: Request, res: Response) => admit(req, res, deps.limits),
  });

  const handlers: Record<string, Handler> = {
    ...workspaceHandlers(deps),
    ...offerHandlers(deps),
    ...offerEventHandlers(deps),
    ...documentHandlers({ publicUrl: deps.publicUrl }),
  };
  api.register({
    ...handlers,
    ...fallbackHandlers,
    // openapi.yaml "Pagination", from the raw query string app.ts keeps in res.locals.rawQuery.
    postRoutingHandler: ownQueryOnly,
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
