import type { Context, Handler } from 'openapi-backend';
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../../src/http/openapi-document.js';
import { createOpenApiRouter } from '../../src/http/openapi-router.js';

// src/http/openapi-router.ts on openapi.yaml, with patches/openapi-backend+5.21.2.patch: validation
// and the handler both see only the operation's own query parameters, first value each.

interface Seen {
  handler?: string;
  query?: unknown;
  params?: unknown;
  errors?: unknown;
}

function router() {
  const { api, ownQueryOnly } = createOpenApiRouter(loadOpenApiDocument().document, { bearerAuth: () => ({ ok: true }) });
  const record =
    (name: string): Handler =>
    (c: Context, _req: unknown, seen: Seen) => {
      seen.handler = name;
      seen.query = c.request?.query;
      seen.params = c.request?.params;
      seen.errors = c.validation?.errors ?? undefined;
    };
  api.register({
    listOffers: record('listOffers'),
    getOffer: record('getOffer'),
    notFound: record('notFound'),
    methodNotAllowed: record('methodNotAllowed'),
    validationFail: record('validationFail'),
    unauthorizedHandler: record('unauthorized'),
    postRoutingHandler: (c: Context, req: unknown, seen: Seen & { locals: Record<string, unknown> }) =>
      ownQueryOnly(c, req as never, seen as never),
  });
  async function request(method: string, path: string, query = '') {
    // As app.ts hands a request over: the query empty, the raw string in locals.
    const apiRequest = { method, path, query: {}, headers: { authorization: 'Bearer x' } };
    const seen: Seen & { locals: Record<string, unknown> } = { locals: { rawQuery: query } };
    await api.handleRequest(apiRequest, {}, seen);
    return { seen };
  }
  return { request };
}

describe('the API router (openapi-backend as set up by openapi-router.ts)', () => {
  it('validation and the handler see its own query parameters, first value each', async () => {
    const { request } = router();
    const { seen } = await request('get', '/offers', 'limit=5&limit=abc&status=sent&unknown=1');
    expect(seen).toMatchObject({ handler: 'listOffers', query: { limit: 5, status: 'sent' } });
  });

  it('validates the query that is left: a bad first value fails, naming it', async () => {
    const { request } = router();
    const { seen } = await request('get', '/offers', 'limit=0&limit=5');
    expect(seen.handler).toBe('validationFail');
    expect(JSON.stringify(seen.errors)).toContain('/query/limit');
  });

  it('gives the handlers of a failed routing a parsed request too', async () => {
    const { request } = router();
    // The query of an unrouted request stays as app.ts hands it over (empty); it is parsed all the same.
    const unknown = await request('get', '/nothing', 'a=1');
    expect(unknown.seen).toMatchObject({ handler: 'notFound', query: {}, params: {} });
    const wrongMethod = await request('post', '/offers');
    expect(wrongMethod.seen.handler).toBe('methodNotAllowed');
  });

  it('fills path parameters', async () => {
    const { request } = router();
    const { seen } = await request('get', '/offers/0b9e7e6e-6f0b-4a0e-9d3c-2f4c9f1d2a10');
    expect(seen).toMatchObject({ handler: 'getOffer', params: { id: '0b9e7e6e-6f0b-4a0e-9d3c-2f4c9f1d2a10' } });
  });
});

describe("the patched parse (patches/openapi-backend+5.21.2.patch) gives what openapi-backend's own gave", () => {
  const { api } = createOpenApiRouter(loadOpenApiDocument().document, {});
  const getOffer = api.router.getOperation('getOffer')!;

  it('path parameters: decoded, and null where bath-es5 (the parser it replaces) says no match', async () => {
    const { default: bath } = (await import('bath-es5')) as unknown as { default: (t: string) => { params(p: string): unknown } };
    const cases: [string, string][] = [
      ['/offers/{id}', '/offers/0b9e7e6e-6f0b-4a0e-9d3c-2f4c9f1d2a10'],
      ['/offers/{id}', '/offers/a%20b%2Fc'],
      ['/offers/{id}', '/offers/'],
      ['/offers/{id}', '/offers/a/b'],
      ['/offers/{id}/events', '/offers/x/events'],
      ['/offers/{id}/events', '/offers/x/events/'],
      ['/a/{x}/b/{x}', '/a/1/b/1'],
      ['/a/{x}/b/{x}', '/a/1/b/2'],
      ['/a/{x}.{y}', '/a/f.json'],
    ];
    for (const [template, path] of cases) {
      const operation = { ...getOffer, path: template };
      const ours = api.router.parseRequest({ method: 'get', path, headers: {} }, operation as never).params;
      expect([template, path, ours]).toEqual([template, path, bath(template).params(path) ?? {}]);
    }
  });

  it('headers keyed in lower case, cookies parsed only from a Cookie header, the query copied', () => {
    const query = { status: 'sent' };
    const parsed = api.router.parseRequest(
      { method: 'get', path: '/offers', headers: { 'X-Trace': 'a', cookie: 'od_session=s1; theme=dark' }, query },
      api.router.getOperation('listOffers'),
    );
    expect(parsed.headers).toEqual({ 'x-trace': 'a', cookie: 'od_session=s1; theme=dark' });
    expect(parsed.cookies).toEqual({ od_session: 's1', theme: 'dark' });
    expect(parsed.query).toEqual(query);
    expect(parsed.query).not.toBe(query);
    expect(api.router.parseRequest({ method: 'get', path: '/offers', headers: {} }).cookies).toEqual({});
    // Node's headers object has no prototype, so a client can send a header named __proto__.
    const oddHeaders = Object.assign(Object.create(null) as Record<string, string>, { ['__proto__']: 'x', accept: 'a' });
    const odd = api.router.parseRequest({ method: 'get', path: '/offers', headers: oddHeaders }).headers;
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.keys(odd)).toEqual(['__proto__', 'accept']);
  });
});

describe("security handlers under openapi-backend's handleRequest", () => {
  async function outcome(security: Handler) {
    const { api } = createOpenApiRouter(loadOpenApiDocument().document, { bearerAuth: security });
    const seen: { handler?: string; security?: unknown } = {};
    const record = (name: string) => (c: Context) => {
      seen.handler = name;
      seen.security = c.security;
    };
    api.register({ getOffer: record('getOffer'), unauthorizedHandler: record('unauthorized'), notFound: record('notFound') });
    await api.handleRequest({ method: 'get', path: '/offers/0b9e7e6e-6f0b-4a0e-9d3c-2f4c9f1d2a10', query: {}, headers: {} });
    return seen;
  }

  it("stores the handler's result and calls the operation when it is truthy", async () => {
    expect(await outcome(async () => ({ keyHash: 'h' }))).toEqual({ handler: 'getOffer', security: { bearerAuth: { keyHash: 'h' }, authorized: true } });
  });

  it('stores what a handler throws or rejects with as { error } and answers unauthorized', async () => {
    const thrown = new Error('no');
    expect(
      await outcome(() => {
        throw thrown;
      }),
    ).toEqual({ handler: 'unauthorized', security: { bearerAuth: { error: thrown }, authorized: false } });
    const rejectedWithNothing = await outcome(() => Promise.reject(null));
    expect(rejectedWithNothing.handler).toBe('unauthorized');
    expect((rejectedWithNothing.security as { bearerAuth: { error: Error } }).bearerAuth.error).toBeInstanceOf(Error);
    expect(await outcome(async () => false)).toEqual({ handler: 'unauthorized', security: { bearerAuth: false, authorized: false } });
  });
});
