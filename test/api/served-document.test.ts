import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { loadConfig } from '../../src/config.js';

/**
 * The `servers` entry of the served /openapi.json names the server that serves it, so a client
 * generated from a running instance works against it: OFFERDESK_PUBLIC_URL when set (behind a
 * proxy), else the address the document was requested at.
 */
let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function getDocument(origin: string, headers: Record<string, string> = {}): Promise<{ servers: { url: string }[] }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/api/v1/openapi.json`, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('servers entry of the served OpenAPI document', () => {
  it('is the address the document was requested at by default', async () => {
    api = await startTestApi();
    // Straight to the service: a proxy in front (the Prism gate's) sends its own Host.
    const doc = await getDocument(api.serverOrigin);
    expect(doc.servers[0]!.url).toBe(`${api.serverOrigin}/api/v1`);
  });

  it('follows the Host the client used', async () => {
    api = await startTestApi();
    const doc = await getDocument(api.serverOrigin, { host: 'offers.internal.test:8443' });
    expect(doc.servers[0]!.url).toBe('http://offers.internal.test:8443/api/v1');
  });

  it('is OFFERDESK_PUBLIC_URL when set, whatever the Host', async () => {
    api = await startTestApi({ env: { OFFERDESK_PUBLIC_URL: 'https://api.acme.test/' } });
    const doc = await getDocument(api.origin, { host: 'offers.internal.test:8443' });
    expect(doc.servers[0]!.url).toBe('https://api.acme.test/api/v1');
  });
});

describe('OFFERDESK_PUBLIC_URL', () => {
  it('defaults to http://localhost:<port>', () => {
    expect(loadConfig({ PORT: '9090' }).publicUrl).toBe('http://localhost:9090');
  });

  it.each(['https://api.acme.test/v1', 'ftp://api.acme.test', 'api.acme.test', 'https://u:p@api.acme.test', 'https://api.acme.test/?x=1'])(
    'refuses %s with a message that says what to fix',
    (value) => {
      expect(() => loadConfig({ OFFERDESK_PUBLIC_URL: value })).toThrow(/OFFERDESK_PUBLIC_URL must be .*scheme:\/\/host\[:port\] without a path/);
    },
  );
});
