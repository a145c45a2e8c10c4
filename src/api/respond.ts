import type { Response } from 'express';

/**
 * SPEC.md "Endpoints": "Every response body is JSON (`application/json; charset=utf-8`) and
 * carries `Cache-Control: no-store`". HEAD answers get the same headers without the body
 * (Node drops the body of a HEAD response and keeps Content-Length).
 */
export function sendJson(res: Response, status: number, body: unknown, cacheControl = 'no-store'): void {
  sendRawJson(res, status, JSON.stringify(body), cacheControl);
}

export function sendRawJson(res: Response, status: number, json: string, cacheControl = 'no-store'): void {
  res.status(status);
  res.set('Content-Type', 'application/json; charset=utf-8');
  res.set('Cache-Control', cacheControl);
  res.send(json);
}

/** OPTIONS answers: 204 without a body. */
export function sendEmpty(res: Response, status: number): void {
  res.status(status);
  res.set('Cache-Control', 'no-store');
  res.end();
}
