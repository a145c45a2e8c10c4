import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Request, Response } from 'express';
import { createOperations } from '../../src/api/operations.js';
import { loadOpenApiDocument } from '../../src/http/openapi-document.js';
import { Cursors } from '../../src/http/cursor.js';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/log.js';
import type { RateLimits } from '../../src/api/admission/rate-limits.js';
import { freshDatabase, type TestDatabase } from '../support/database.js';

const METHODS = ['get', 'head', 'options', 'post', 'put', 'patch', 'delete'] as const;

function documentOperations(): { operationId: string; method: string; path: string }[] {
  const paths = loadOpenApiDocument().document.paths as Record<string, Record<string, { operationId?: string }>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ operationId: item[method]!.operationId!, method, path })),
  );
}

const openLimits: RateLimits = {
  consumeIp: async () => ({ allowed: true, limit: 300, remaining: 299, resetSeconds: 60 }),
  consumeKey: async () => ({ allowed: true, limit: 120, remaining: 119, resetSeconds: 60 }),
  probeStore: async () => 'not_configured',
  close: async () => {},
};

describe('routing by operationId on the 3.1 document', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => db.drop());

  function operations() {
    return createOperations({
      sql: db.sql,
      clock: new ManualClock(),
      cursors: new Cursors(Buffer.alloc(32, 1)),
      limits: openLimits,
      logger: createLogger('silent'),
    });
  }

  it('registers every path operation of openapi.yaml (none silently dropped)', () => {
    const { api } = operations();
    const routed = api.getOperations().map((op) => op.operationId).sort();
    expect(routed).toEqual(documentOperations().map((op) => op.operationId).sort());
    expect(routed).toEqual(['getOffer', 'getOpenApiDocument', 'getWorkspace', 'listOfferEvents', 'listOffers']);
  });

  // openapi.yaml "## Methods": only operations an integrator calls are operations; HEAD, OPTIONS
  // and the 405 methods are behaviour of every path, described in prose (a generated client
  // method that can only fail is a defect).
  it('describes only GET operations, each of which can succeed (has a 2xx answer)', () => {
    const paths = loadOpenApiDocument().document.paths as Record<string, Record<string, { responses?: object }>>;
    for (const [path, item] of Object.entries(paths)) {
      expect(METHODS.filter((m) => item[m]), path).toEqual(['get']);
      expect(Object.keys(item.get!.responses ?? {}).some((status) => /^2/.test(status)), path).toBe(true);
    }
  });

  it('has a handler for every operation and an operation for every handler', () => {
    const { handlers } = operations();
    expect(Object.keys(handlers).sort()).toEqual(documentOperations().map((op) => op.operationId).sort());
  });

  it.each(documentOperations())('routes $method $path to the handler of $operationId', async ({ operationId, method, path }) => {
    const { api, handlers } = operations();
    const called: string[] = [];
    // The operation the router chose, seen where routing ends (before the key check), so that a
    // request stopped at 401 still shows which handler would have answered it.
    const routed: string[] = [];
    const postRouting = api.handlers.postRoutingHandler!;
    api.register('postRoutingHandler', (c, req: Request, res: Response) => {
      routed.push(c.operation?.operationId ?? '(none)');
      return postRouting(c, req, res);
    });
    for (const [id, handler] of Object.entries(handlers)) {
      api.register(id, (c, req: Request, res: Response) => {
        called.push(id);
        return (handler as (...args: unknown[]) => unknown)(c, req, res);
      });
    }
    const concretePath = path.replace('{id}', '0b9f4c1e-1d2a-4c55-9a57-4f1c2d3e4f50');
    const res = fakeResponse();
    const req = { ip: '127.0.0.1', originalUrl: `/api/v1${concretePath}`, headers: {} } as unknown as Request;
    const request = { method, path: concretePath, query: {}, headers: {} };
    res.locals.rawQuery = ''; // as app.ts hands it over
    await api.handleRequest(request, req, res);
    expect(routed).toEqual([operationId]);
    // Key-protected reads stop at the missing key (401) before their handler; everything else runs it.
    if (res.statusCode === 401) {
      expect(['get', 'head']).toContain(method);
      expect(operationId).not.toMatch(/OpenApiDocument$/);
    } else {
      expect(called).toEqual([operationId]);
    }
  });
});

describe('methods described in prose are answered by the fallback', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => db.drop());

  async function answer(method: string, path: string) {
    const { api } = createOperations({
      sql: db.sql,
      clock: new ManualClock(),
      cursors: new Cursors(Buffer.alloc(32, 1)),
      limits: openLimits,
      logger: createLogger('silent'),
    });
    const res = fakeResponse();
    const req = { ip: '127.0.0.1', method, originalUrl: `/api/v1${path}`, headers: {} } as unknown as Request;
    const request = { method: method.toLowerCase(), path, query: {}, headers: {} };
    res.locals.rawQuery = '';
    await api.handleRequest(request, req, res);
    return res;
  }

  it.each(['/workspace', '/offers', '/offers/0b9f4c1e-1d2a-4c55-9a57-4f1c2d3e4f50', '/offers/x/events', '/openapi.json'])(
    'OPTIONS %s is 204 and POST, PUT, PATCH, DELETE are 405, with Allow',
    async (path) => {
      const options = await answer('OPTIONS', path);
      expect(options.statusCode).toBe(204);
      expect(options.get('allow')).toBe('GET, HEAD, OPTIONS');
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await answer(method, path);
        expect(res.statusCode, method).toBe(405);
        expect(res.get('allow'), method).toBe('GET, HEAD, OPTIONS');
      }
    },
  );
});

function fakeResponse(): Response {
  const headers = new Map<string, string>();
  const res = {
    statusCode: 200,
    headersSent: false,
    locals: {} as Record<string, unknown>,
    status(code: number) {
      res.statusCode = code;
      return res;
    },
    set(name: string, value: string) {
      headers.set(name.toLowerCase(), value);
      return res;
    },
    get(name: string) {
      return headers.get(name.toLowerCase());
    },
    send() {
      return res;
    },
    // respond.ts writes JSON answers with Node's writeHead and end.
    writeHead(code: number, more: Record<string, string | number> = {}) {
      res.statusCode = code;
      for (const [name, value] of Object.entries(more)) headers.set(name.toLowerCase(), String(value));
      return res;
    },
    end() {
      return res;
    },
  };
  return res as unknown as Response;
}
