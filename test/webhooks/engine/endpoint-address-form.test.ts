import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { checkEndpointAddress, MAX_URL_LENGTH, normaliseEndpointUrl, type Resolver } from '../../../src/webhooks/transport/address-rules.js';
import { addEndpoint, listEndpoints } from '../../../src/webhooks/management/endpoints.js';
import { useEngineFixture, workspace } from './helpers.js';

// Endpoint addresses are stored in the WHATWG serialisation (one address, one spelling), and the
// internal-name list holds the IANA special-use names plus the usual private and cluster suffixes.

describe('the stored form of an endpoint address', () => {
  it.each([
    ['HTTPS://Receiver.ACME.io:443/Hooks?tenant=1#section', 'https://receiver.acme.io/Hooks?tenant=1'],
    ['https://bücher.de/hook', 'https://xn--bcher-kva.de/hook'],
    ['https://receiver.acme.io', 'https://receiver.acme.io/'],
    ['https://receiver.acme.io/a b/%7e', 'https://receiver.acme.io/a%20b/%7e'],
    ['https://receiver.acme.io/x#', 'https://receiver.acme.io/x'],
  ])('%s is stored as %s', (typed, stored) => {
    expect(normaliseEndpointUrl(typed)).toBe(stored);
  });

  it('an address whose normal form exceeds 2,048 characters has none', () => {
    // Each "ü" label grows in punycode; the typed text fits, the normal form does not.
    const typed = `https://${Array.from({ length: 30 }, () => 'üüüüü').join('.')}.de/${'p'.repeat(MAX_URL_LENGTH - 250)}`;
    expect(typed.length).toBeLessThanOrEqual(MAX_URL_LENGTH);
    expect(normaliseEndpointUrl(typed)).toBeNull();
  });

  const f = useEngineFixture();
  it('addEndpoint stores and lists the normalised address, not the typed one', async () => {
    const ws = await workspace(f);
    await addEndpoint(f.manage, {
      workspaceId: ws.workspaceId,
      url: '  HTTPS://HOOKS.test:443/Webhooks?a=1#fragment ',
      events: ['offer.sent'],
      actorId: ws.ownerId,
    });
    const [listed] = await listEndpoints(f.manage, { workspaceId: ws.workspaceId });
    expect(listed!.url).toBe('https://hooks.test/Webhooks?a=1');
    const [row] = await f.sql<{ url: string }[]>`select url from webhook_endpoints where workspace_id = ${ws.workspaceId}::uuid`;
    expect(row!.url).toBe('https://hooks.test/Webhooks?a=1');
  });
});

describe('internal names', () => {
  const config = loadConfig({}).webhooks;
  const asked: string[] = [];
  const resolver: Resolver = {
    async resolve(hostname) {
      asked.push(hostname);
      return [{ address: '93.184.215.14', family: 4 }];
    },
  };

  it.each([
    ['https://hooks.alt/', 'alt'],
    ['https://billing.payments.svc/', 'svc'],
    ['https://api.default.svc.cluster.local/', 'local'],
    ['https://kubernetes.cluster/', 'cluster'],
    ['https://vault.service.consul/', 'consul'],
    ['https://relay.mail/', 'mail'],
    ['https://api.example.com/', 'example.com'],
    ['https://hooks.example.org/', 'example.org'],
    ['https://ipv4only.arpa/', 'arpa'],
    ['https://router.home.arpa/', 'home.arpa'],
    ['https://db.localdomain/', 'localdomain'],
    ['https://host.docker.internal/', 'internal'],
  ])('%s is refused as a .%s name, without asking DNS', async (url, suffix) => {
    asked.length = 0;
    const verdict = await checkEndpointAddress(url, { config, customOfferDomains: [], resolver });
    expect(verdict).toEqual({ ok: false, reason: `host name must be public (.${suffix} names are internal); for a receiver on this machine run "offerdesk listen"` });
    expect(asked).toEqual([]);
  });

  it.each(['https://receiver.example-corp.com/', 'https://mail.acme.io/', 'https://svc.acme.io/', 'https://alt.acme.io/'])(
    '%s is public: the suffixes match whole labels at the end only',
    async (url) => {
      expect((await checkEndpointAddress(url, { config, customOfferDomains: [], resolver })).ok).toBe(true);
    },
  );
});
