import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { ALLOW, reply } from '../errors.js';
import { sendEmpty } from '../../http/respond.js';

/**
 * The methods openapi.yaml describes in prose ("## Methods") rather than as operations: on a path
 * of the document, openapi-backend finds no operation for them and calls `methodNotAllowed`.
 * openapi.yaml "Methods": "OPTIONS | 204, no body, header `Allow: GET, HEAD, OPTIONS`; needs no key" and
 * "POST, PUT, PATCH, DELETE | 405 `method_not_allowed` with `Allow: GET, HEAD, OPTIONS`; needs no
 * key". Neither reaches admission, so both skip every check (openapi.yaml "Order of checks").
 * HEAD never arrives here: app.ts routes it as the path's GET.
 */
function methodNotAllowed(_c: Context, req: Request, res: Response): void {
  if (req.method === 'OPTIONS') {
    res.set('Allow', ALLOW);
    sendEmpty(res, 204);
    return;
  }
  reply.methodNotAllowed(res);
}

export const fallbackHandlers = {
  notFound: (_c: Context, _req: Request, res: Response) => reply.notFound(res),
  methodNotAllowed,
};
