import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOffer } from '../../src/domain/offer-actions.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { PUBLIC_API, startSharedPrism, type SharedPrism } from '../support/prism-proxy.js';
import { workspaceWithKey, type WorkspaceFixture } from '../support/fixtures.js';

/**
 * The Prism gate (contract-tests/gate-prism.sh) is seen to fail on a planted defect: the real
 * server's answers, with the offers' title dropped on the way by the proxy of
 * test/support/planted-defect.ts, reach the Prism front of test/support/prism-proxy.ts, which
 * startTestApi puts in front while OFFERDESK_TEST_PROXY=prism. Through a shared Prism and its relay, as the
 * `api` and `console` projects run it (test/support/prism-setup.ts).
 */
let shared: SharedPrism;
let api: TestApi;
let ws: WorkspaceFixture;
let offerId: string;
let closing: Promise<void> | undefined;

beforeAll(async () => {
  process.env.OFFERDESK_TEST_PROXY = 'prism';
  shared = await startSharedPrism(PUBLIC_API);
  try {
    api = await startTestApi({ plantDefect: true, sharedPrism: shared.origin });
  } finally {
    delete process.env.OFFERDESK_TEST_PROXY;
  }
  ws = await workspaceWithKey(api.db.sql, api.clock);
  offerId = (await createOffer(api.db.sql, api.clock, { workspaceId: ws.workspaceId, title: 'Planted' })).id;
});
afterAll(async () => {
  await (closing ?? api.close()).catch(() => {});
  await shared?.close();
});

const auth = () => ({ authorization: `Bearer ${ws.key}` });

describe('the Prism front, with a server whose offers lack the required title', () => {
  it('answers 500 VIOLATIONS to a response that breaks openapi.yaml', async () => {
    const res = await fetch(`${api.baseUrl}/offers/${offerId}`, { headers: auth() });
    expect(res.status).toBe(500);
    const problem = (await res.json()) as { type: string; validation: { message: string }[] };
    expect(problem.type).toBe('https://stoplight.io/prism/errors#VIOLATIONS');
    expect(problem.validation.map((v) => v.message).join('\n')).toMatch(/required property 'title'/);
  });

  it('passes a response that keeps the contract unchanged', async () => {
    const res = await fetch(`${api.baseUrl}/workspace`, { headers: auth() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("routes Prism's own refusals to the server: a missing key gets the server's 401", async () => {
    const res = await fetch(`${api.baseUrl}/offers`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: 'Missing or invalid API key.' } });
  });

  it("routes an unknown path to the server: its 404 not_found", async () => {
    const res = await fetch(`${api.baseUrl}/nope`, { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Resource not found.' } });
  });

  it('sends HEAD straight to the server (same status and headers as GET, no body)', async () => {
    const res = await fetch(`${api.baseUrl}/workspace`, { method: 'HEAD', headers: auth() });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('fails the file on close, naming every violation seen', async () => {
    closing = api.close();
    await expect(closing).rejects.toThrow(/Prism found \d+ contract violation\(s\)[\s\S]*GET \/api\/v1\/offers\/[0-9a-f-]+: Prism VIOLATIONS/);
  });
});
