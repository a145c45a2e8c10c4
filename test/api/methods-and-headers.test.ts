import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { get, workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';
import { createOffer } from '../../src/domain/offer-actions.js';

const ENDPOINTS = ['/workspace', '/offers', '/offers/{id}', '/offers/{id}/events'];
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-allow-credentials',
  'access-control-expose-headers',
  'access-control-max-age',
];

let api: TestApi;
let ws: WorkspaceFixture;
let offerId: string;
const path = (template: string) => api.baseUrl + template.replace('{id}', offerId);

beforeAll(async () => {
  api = await startTestApi();
  ws = await workspaceWithKey(api.db.sql, api.clock);
  offerId = (await createOffer(api.db.sql, api.clock, { workspaceId: ws.workspaceId, title: 'Brand workshop' })).id;
});
afterAll(async () => api.close());

describe('openapi.yaml "Methods"', () => {
  it.each(ENDPOINTS)('OPTIONS %s is 204 with Allow, no body and no key needed', async (endpoint) => {
    const res = await fetch(path(endpoint), { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await res.text()).toBe('');
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });

  it.each(ENDPOINTS.flatMap((e) => WRITE_METHODS.map((m) => [m, e])))(
    '%s %s is 405 method_not_allowed with Allow and no key needed',
    async (method, endpoint) => {
      const res = await fetch(path(endpoint!), { method, body: method === 'DELETE' ? undefined : '{"title":"x"}' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(res.headers.get('ratelimit-limit')).toBeNull();
      expect(await res.json()).toEqual({
        error: { code: 'method_not_allowed', message: 'Method not allowed. This API is read-only.' },
      });
    },
  );

  it.each(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'])(
    '%s on a path that does not exist is 404 not_found without a key',
    async (method) => {
      for (const missing of ['/api/v1/offer', '/api/v1/offers/x/y/z', '/api/v1', '/api/v2/offers', '/', '/api/v1/workspace/']) {
        const res = await fetch(api.origin + missing, { method });
        expect(res.status, `${method} ${missing}`).toBe(404);
        expect(res.headers.get('ratelimit-limit')).toBeNull();
        if (method !== 'HEAD') {
          expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Resource not found.' } });
        }
      }
    },
  );

  it.each(['/workspace', '/offers', `/offers/{id}`, '/offers/{id}/events'])(
    'HEAD %s answers like GET with the same status and headers and no body',
    async (endpoint) => {
      const getRes = await get(path(endpoint), ws.key);
      const headRes = await get(path(endpoint), ws.key, { method: 'HEAD' });
      expect(headRes.status).toBe(getRes.status);
      expect(await headRes.text()).toBe('');
      for (const name of ['content-type', 'cache-control', 'content-length', 'ratelimit-limit']) {
        expect(headRes.headers.get(name), name).toBe(getRes.headers.get(name));
      }
      // HEAD counts against the key's limit like GET.
      expect(Number(headRes.headers.get('ratelimit-remaining'))).toBe(Number(getRes.headers.get('ratelimit-remaining')) - 1);
    },
  );

  it('HEAD with a wrong key is 401 like GET, without a body', async () => {
    const res = await get(path('/offers'), 'odk_live_' + 'x'.repeat(40), { method: 'HEAD' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.text()).toBe('');
  });
});

describe('openapi.yaml "Conventions": headers of every answer', () => {
  const cases = () => [
    { name: '200', run: () => get(path('/offers'), ws.key) },
    { name: '400', run: () => get(path('/offers?limit=0'), ws.key) },
    { name: '401', run: () => get(path('/offers')) },
    { name: '404 id', run: () => get(path('/offers/00000000-0000-4000-8000-000000000000'), ws.key) },
    { name: '404 path', run: () => fetch(api.origin + '/nothing-here') },
    { name: '405', run: () => fetch(path('/offers'), { method: 'POST' }) },
  ];

  it('every JSON answer is application/json; charset=utf-8 with Cache-Control: no-store', async () => {
    for (const { name, run } of cases()) {
      const res = await run();
      expect(res.headers.get('content-type'), name).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control'), name).toBe('no-store');
      JSON.parse(await res.text());
    }
  });

  it('no answer carries a CORS header, not even OPTIONS with an Origin', async () => {
    const all = [
      ...cases().map((c) => c.run),
      () => fetch(path('/offers'), { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } }),
      () => get(path('/offers'), ws.key, { headers: { origin: 'https://app.example' } }),
      () => fetch(api.baseUrl + '/openapi.json', { headers: { origin: 'https://app.example' } }),
    ];
    for (const run of all) {
      const res = await run();
      for (const header of CORS_HEADERS) expect(res.headers.get(header)).toBeNull();
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });
});

describe('openapi.yaml "getOpenApiDocument"', () => {
  it('serves openapi.yaml as JSON without a key, cacheable for 300 seconds', async () => {
    const res = await fetch(api.baseUrl + '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    // openapi.yaml's relative `servers` entry is served as this server's absolute base URL
    // (test/api/served-document.test.ts); everything else is the file itself.
    const { servers, ...served } = await res.json();
    const { servers: fileServers, ...file } = parse(readFileSync('openapi.yaml', 'utf8'));
    expect(served).toEqual(file);
    expect(servers).toEqual([{ ...fileServers[0], url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:[0-9]+\/api\/v1$/) }]);
  });

  it('is OpenAPI 3.1 carrying API version 1.0.0 and a webhooks section', async () => {
    const doc = await (await fetch(api.baseUrl + '/openapi.json')).json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers[0].url).toMatch(/\/api\/v1$/);
    expect(Object.keys(doc.webhooks).sort()).toEqual(
      ['offer.accepted', 'offer.expired', 'offer.first_viewed', 'offer.sent', 'offer.signed', 'offer.withdrawn', 'ping'],
    );
  });
});

describe('health', () => {
  it('answers outside /api/v1 without a key', async () => {
    const res = await fetch(api.origin + '/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
