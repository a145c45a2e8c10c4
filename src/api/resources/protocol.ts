import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { ALLOW, reply } from '../errors.js';
import { sendEmpty } from '../respond.js';

/**
 * SPEC.md "Methods": OPTIONS is 204 with `Allow`; POST, PUT, PATCH and DELETE are 405 with
 * `Allow`. Both need no key and skip every check (their operations carry `security: []`).
 * openapi.yaml describes them as operations of their own; their handlers are chosen by method.
 */
function options(_c: Context, _req: Request, res: Response): void {
  res.set('Allow', ALLOW);
  sendEmpty(res, 204);
}

function methodNotAllowed(_c: Context, _req: Request, res: Response): void {
  reply.methodNotAllowed(res);
}

const BY_METHOD: Record<string, (c: Context, req: Request, res: Response) => void> = {
  options,
  post: methodNotAllowed,
  put: methodNotAllowed,
  patch: methodNotAllowed,
  delete: methodNotAllowed,
};

/** Handlers for every OPTIONS and write-method operation of the document, keyed by operationId. */
export function protocolHandlers(operations: { operationId?: string; method: string }[]) {
  const handlers: Record<string, (c: Context, req: Request, res: Response) => void> = {};
  for (const { operationId, method } of operations) {
    const handler = BY_METHOD[method];
    if (handler && operationId) handlers[operationId] = handler;
  }
  return handlers;
}

export const fallbackHandlers = {
  notFound: (_c: Context, _req: Request, res: Response) => reply.notFound(res),
  // A method the document does not describe at all (TRACE, PROPFIND...) on an existing path.
  methodNotAllowed,
};
