import type { Response } from 'express';

/**
 * openapi.yaml "Conventions": "Every response body is JSON (`application/json; charset=utf-8`) and
 * carries `Cache-Control: no-store`". HEAD answers get the same headers without the body
 * (Node drops the body of a HEAD response and keeps Content-Length).
 */
export function sendJson(res: Response, status: number, body: unknown, cacheControl = 'no-store'): void {
  sendRawJson(res, status, JSON.stringify(body), cacheControl);
}

/**
 * Written with Node's own writeHead and end, not Express's send: send turns the text into a
 * Buffer, runs its freshness check (there is no ETag to check) and leaves Node to write headers
 * and body as two chunks; a string given to end goes out with the headers in one write.
 */
export function sendRawJson(res: Response, status: number, json: string, cacheControl = 'no-store'): void {
  // Answered already: the response deadline sent the 500 (docs/reliability.md "No request waits
  // without bound"), and the handler's late answer is dropped.
  if (res.headersSent) return;
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': cacheControl,
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

/** OPTIONS answers: 204 without a body. */
export function sendEmpty(res: Response, status: number): void {
  res.status(status);
  res.set('Cache-Control', 'no-store');
  res.end();
}
