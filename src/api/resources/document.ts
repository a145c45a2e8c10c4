import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { loadOpenApiDocument } from '../openapi-document.js';
import { sendRawJson } from '../respond.js';

/** SPEC.md "GET /openapi.json": no key, `Cache-Control: public, max-age=300`. */
function getOpenApiDocument(_c: Context, _req: Request, res: Response): void {
  sendRawJson(res, 200, loadOpenApiDocument().json, 'public, max-age=300');
}

export const documentHandlers = { getOpenApiDocument };
