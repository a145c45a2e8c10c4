import type { Request, Response } from 'express';
import type { Context, Handler } from 'openapi-backend';
import { sendRawJson } from '../http/respond.js';
import { CONSOLE_LABEL } from '../domain/audit.js';
import { lookupSession, type Session } from '../domain/sessions.js';
import { createOpenApiRouter } from '../http/openapi-router.js';
import { tracedConsoleDeps, type ConsoleDeps, type ConsoleHandlerTable, type ConsoleRequest } from './context.js';
import { requestSpan, tracedSql } from '../telemetry/tracing.js';
import { loadConsoleDocument, servedConsoleDocument } from './document.js';
import { answerError, CONSOLE_MESSAGES, sendConsoleError } from './errors.js';
import { apiKeyHandlers } from './handlers/api-keys.js';
import { auditLogHandlers } from './handlers/audit-log.js';
import { deliveryHandlers } from './handlers/deliveries.js';
import { endpointHandlers } from './handlers/endpoints.js';
import { eventTypeHandlers } from './handlers/event-types.js';
import { invitationHandlers } from './handlers/invitations.js';
import { memberHandlers } from './handlers/members.js';
import { offerDomainHandlers } from './handlers/offer-domain.js';
import { selfServiceHandlers } from './handlers/self-service.js';
import { mailboxHandlers } from './handlers/mailbox.js';
import { sessionHandlers } from './handlers/session.js';
import { sessionToken } from './session-cookie.js';

/** Handler tables by resource, merged into one operationId map. */
export const CONSOLE_HANDLER_TABLES: ConsoleHandlerTable[] = [
  sessionHandlers,
  eventTypeHandlers,
  apiKeyHandlers,
  endpointHandlers,
  auditLogHandlers,
  deliveryHandlers,
  selfServiceHandlers,
  memberHandlers,
  invitationHandlers,
  offerDomainHandlers,
  mailboxHandlers,
];

const ROUTED_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Routing and validation by operationId on console-api.yaml, with the public API's router
 * (http/openapi-router.ts).
 * Session check (security scheme `sessionCookie`) → 401 before validation; validation → 400 with
 * the field or parameter in `param`, except a malformed ID in the path, which names nothing: 404.
 */
export function createConsoleOperations(deps: ConsoleDeps, tables: ConsoleHandlerTable[] = CONSOLE_HANDLER_TABLES) {
  const { api, ownQueryOnly } = createOpenApiRouter(loadConsoleDocument(), {
    sessionCookie: async (_c: Context, req: Request, res: Response) => {
      const token = sessionToken(req);
      return token ? ((await lookupSession(tracedSql(deps.sql, requestSpan(res)), deps.clock, token)) ?? false) : false;
    },
  });

  const table: ConsoleHandlerTable = Object.assign({}, ...tables);
  const handlers: Record<string, Handler> = {};
  for (const [operationId, handler] of Object.entries(table)) {
    handlers[operationId] = async (c: Context, req: Request, res: Response) => {
      const session = (c.security?.sessionCookie as Session | false | undefined) || null;
      const via = { label: CONSOLE_LABEL, ip: req.ip ?? null };
      const request: ConsoleRequest = { deps: tracedConsoleDeps(deps, requestSpan(res)), c, req, res, session, via };
      try {
        await handler(request);
      } catch (error) {
        answerError(res, error);
      }
    };
  }
  handlers.getConsoleApiDocument = (_c: Context, _req: Request, res: Response) =>
    sendRawJson(res, 200, servedConsoleDocument(deps.config.publicUrl));

  api.register({
    ...handlers,
    postRoutingHandler: ownQueryOnly,
    unauthorizedHandler: (_c: Context, _req: Request, res: Response) => sendConsoleError(res, 401, 'unauthorized', CONSOLE_MESSAGES.unauthorized),
    validationFail: (c: Context, _req: Request, res: Response) => {
      const invalid = firstInvalid(c);
      if (invalid.where === 'path') return sendConsoleError(res, 404, 'not_found', CONSOLE_MESSAGES.not_found);
      sendConsoleError(res, 400, 'invalid_request', invalid.message, invalid.param);
    },
    notFound: (_c: Context, _req: Request, res: Response) => sendConsoleError(res, 404, 'not_found', CONSOLE_MESSAGES.not_found),
    // A path of the document with a method it does not list: 405 with the methods it does.
    methodNotAllowed: (c: Context, _req: Request, res: Response) => {
      const allowed = ROUTED_METHODS.filter((method) => api.router.matchOperation({ ...c.request, method }));
      res.set('Allow', allowed.map((m) => m.toUpperCase()).join(', '));
      sendConsoleError(res, 405, 'method_not_allowed', CONSOLE_MESSAGES.method_not_allowed);
    },
    notImplemented: (c: Context) => {
      throw new Error(`console operation ${c.operation?.operationId} has no handler on this build`);
    },
  });
  return { api, handlers };
}

/** The first failing field: where it is, its name, and a sentence saying what is wrong. */
function firstInvalid(c: Context): { where: string; param: string | undefined; message: string } {
  const [error] = c.validation.errors ?? [];
  if (!error) return { where: 'body', param: undefined, message: 'The request is not valid.' };
  const [, where = 'body', ...rest] = error.instancePath.split('/');
  const missing = (error.params as { missingProperty?: string; additionalProperty?: string }) ?? {};
  const name = rest[0] ?? missing.missingProperty ?? missing.additionalProperty;
  const place = where === 'query' ? 'query parameter' : 'field';
  if (missing.additionalProperty) return { where, param: name, message: `Unknown field "${name}"; remove it.` };
  if (missing.missingProperty) return { where, param: name, message: `The ${place} "${name}" is required.` };
  if (!name) return { where, param: undefined, message: `The body ${error.message ?? 'is not valid'}.` };
  return { where, param: name, message: `Invalid value for ${place} "${name}": it ${error.message ?? 'is not valid'}.` };
}
