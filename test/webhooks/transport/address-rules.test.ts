import { describe, expect, it } from 'vitest';
import { loadConfig, type WebhookConfig } from '../../../src/config.js';
import { checkEndpointAddress, type Resolver } from '../../../src/webhooks/transport/address-rules.js';

/**
 * console-api.yaml "Endpoint addresses", the address requirements, as one table: a URL, what its name resolves to, and the
 * verdict. The resolver is a fake; `resolves: null` means "no such name" (ENOTFOUND).
 */

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:4700:4700::1111';

const baseConfig: WebhookConfig = {
  ...loadConfig({ WEBHOOK_BLOCKED_DOMAINS: 'blocked-by-operator.io' }).webhooks,
  devResolve: new Map([['hooks.test', { address: '127.0.0.1', port: 8443 }]]),
};
const customOfferDomains = ['offers.customer-one.com', 'Angebote.Kunde.DE.'];

function fakeResolver(addresses: string[] | null): Resolver & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async resolve(hostname) {
      calls.push(hostname);
      if (addresses === null) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
}

async function check(url: string, resolves: string[] | null = [PUBLIC_V4]) {
  return checkEndpointAddress(url, { config: baseConfig, customOfferDomains, resolver: fakeResolver(resolves) });
}

type Row = [url: string, resolves: string[] | null, reason: RegExp];

const accepted: [url: string, resolves: string[], hostname: string][] = [
  ['https://receiver.acme.io/webhooks', [PUBLIC_V4], 'receiver.acme.io'],
  ['https://receiver.acme.io:443/webhooks?tenant=1', [PUBLIC_V4], 'receiver.acme.io'],
  ['https://Receiver.ACME.io./webhooks', [PUBLIC_V4], 'receiver.acme.io'],
  ['https://bücher.de/hook', [PUBLIC_V4], 'xn--bcher-kva.de'],
  ['https://v6.acme.io/', [PUBLIC_V6], 'v6.acme.io'],
  ['https://dual.acme.io/', [PUBLIC_V4, PUBLIC_V6], 'dual.acme.io'],
  ['https://nat64.acme.io/', ['64:ff9b::808:808'], 'nat64.acme.io'],
  ['https://notherokuapp.com/', [PUBLIC_V4], 'notherokuapp.com'],
  ['https://customer-one.com/', [PUBLIC_V4], 'customer-one.com'],
  ['https://my.testing.io/', [PUBLIC_V4], 'my.testing.io'],
];

const refused: Row[] = [
  // Scheme, port, credentials, form.
  ['http://receiver.acme.io/', [PUBLIC_V4], /^address must use https$/],
  ['ftp://receiver.acme.io/', [PUBLIC_V4], /^address must use https$/],
  ['https://receiver.acme.io:8443/', [PUBLIC_V4], /^port 443 only$/],
  ['https://receiver.acme.io:80/', [PUBLIC_V4], /^port 443 only$/],
  ['https://user:pass@receiver.acme.io/', [PUBLIC_V4], /^address must not contain credentials$/],
  ['https://user@receiver.acme.io/', [PUBLIC_V4], /^address must not contain credentials$/],
  ['receiver.acme.io/webhooks', [PUBLIC_V4], /^address is not a valid URL$/],
  ['https://', [PUBLIC_V4], /^address is not a valid URL$/],
  [`https://receiver.acme.io/${'a'.repeat(2100)}`, [PUBLIC_V4], /longer than 2048/],
  ['https://a..acme.io/', [PUBLIC_V4], /^host name is not valid$/],
  ['https://localhost../', [PUBLIC_V4], /^host name is not valid$/],
  // IP literals in every notation (the URL parser turns the IPv4 forms into dotted quads).
  ['https://127.0.0.1/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://8.8.8.8/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://2130706433/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://0177.0.0.1/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://0x7f.1/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://127.1/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://127.0.0.1./', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://%31%32%37.0.0.1/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://[::1]/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://[::ffff:127.0.0.1]/', [PUBLIC_V4], /IP addresses are not allowed/],
  ['https://[2606:4700:4700::1111]/', [PUBLIC_V4], /IP addresses are not allowed/],
  // Internal names.
  ['https://localhost/', [PUBLIC_V4], /must be public \(\.localhost/],
  ['https://LOCALHOST./', [PUBLIC_V4], /must be public \(\.localhost/],
  ['https://api.localhost/', [PUBLIC_V4], /must be public \(\.localhost/],
  ['https://fileserver/', [PUBLIC_V4], /no single-label names/],
  ['https://webhooks/', [PUBLIC_V4], /no single-label names/],
  ['https://printer.local/', [PUBLIC_V4], /\.local names are internal/],
  ['https://metadata.google.internal/', [PUBLIC_V4], /\.internal names are internal/],
  ['https://wiki.intranet/', [PUBLIC_V4], /\.intranet names/],
  ['https://box.lan/', [PUBLIC_V4], /\.lan names/],
  ['https://nas.home.arpa/', [PUBLIC_V4], /\.home\.arpa names/],
  ['https://git.corp/', [PUBLIC_V4], /\.corp names/],
  ['https://other.test/', [PUBLIC_V4], /\.test names/],
  ['https://svc.example/', [PUBLIC_V4], /\.example names/],
  ['https://x.invalid/', [PUBLIC_V4], /\.invalid names/],
  ['https://abcdefgh.onion/', [PUBLIC_V4], /\.onion names/],
  ['https://1.0.0.127.in-addr.arpa/', [PUBLIC_V4], /\.arpa names/],
  // Operator-blocked suffixes and custom offer-page domains, the domain itself and below it.
  ['https://herokuapp.com/', [PUBLIC_V4], /blocked domain \(herokuapp\.com\)/],
  ['https://my-app.herokuapp.com/', [PUBLIC_V4], /blocked domain \(herokuapp\.com\)/],
  ['https://api.offerdesk.com/', [PUBLIC_V4], /blocked domain \(offerdesk\.com\)/],
  ['https://x.blocked-by-operator.io/', [PUBLIC_V4], /blocked domain \(blocked-by-operator\.io\)/],
  ['https://offers.customer-one.com/', [PUBLIC_V4], /custom offer-page domain/],
  ['https://a.offers.customer-one.com/', [PUBLIC_V4], /custom offer-page domain/],
  ['https://angebote.kunde.de./', [PUBLIC_V4], /custom offer-page domain/],
  // Resolution.
  ['https://gone.acme.io/', null, /^host name does not resolve$/],
  ['https://empty.acme.io/', [], /^host name does not resolve$/],
  ['https://junk.acme.io/', ['localhost'], /not an IP address/],
  ['https://mixed.acme.io/', [PUBLIC_V4, '10.1.2.3'], /private: 10\.1\.2\.3/],
  ['https://mixed6.acme.io/', [PUBLIC_V6, '::1'], /loopback: ::1/],
];

/** Resolved addresses that make a public-looking name refused, with the rule that must be named. */
const refusedAddresses: [address: string, rule: string][] = [
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['::1', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['169.254.10.10', 'link-local'],
  ['fe80::1', 'link-local'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.254', 'carrier-grade NAT'],
  ['fc00::1', 'unique local'],
  ['fd12:3456::1', 'unique local'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.10', 'documentation'],
  ['203.0.113.10', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.1', 'benchmarking'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['169.254.169.254', 'cloud metadata'],
  ['fd00:ec2::254', 'cloud metadata'],
  ['::ffff:127.0.0.1', 'loopback (IPv4-mapped)'],
  ['::ffff:10.0.0.1', 'private (IPv4-mapped)'],
  ['::ffff:169.254.169.254', 'cloud metadata (IPv4-mapped)'],
  ['64:ff9b::7f00:1', 'loopback (NAT64)'],
  ['64:ff9b::a9fe:a9fe', 'cloud metadata (NAT64)'],
  ['64:ff9b:1::a00:1', 'local-use NAT64'],
  ['2002:c0a8:101::1', 'private (6to4)'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
  ['fec0::1', 'site-local (deprecated)'],
  ['100::1', 'discard-only'],
  ['4000::1', 'not global unicast'],
];

describe('endpoint address rules', () => {
  it.each(accepted)('accepts %s resolving to %j as host %s', async (url, resolves, hostname) => {
    expect(await check(url, resolves)).toEqual({
      ok: true,
      hostname,
      addresses: resolves.map((address) => ({ address, family: address.includes(':') ? 6 : 4, port: 443 })),
    });
  });

  it.each(refused)('refuses %s (resolving to %j) with a reason', async (url, resolves, reason) => {
    const verdict = await check(url, resolves);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(reason);
  });

  it.each(refusedAddresses)('refuses a name resolving to %s as %s', async (address, rule) => {
    const verdict = await check('https://receiver.acme.io/', [address]);
    expect(verdict).toEqual({ ok: false, reason: `host name resolves to a non-public address (${rule}: ${address})` });
  });

  it('gives every refusal as one short line', async () => {
    for (const [url, resolves] of refused) {
      const verdict = await check(url, resolves);
      if (!verdict.ok) expect(verdict.reason).toMatch(/^[^\n]{1,120}$/);
    }
  });

  it('does not ask DNS about a name that the earlier rules already refuse', async () => {
    const resolver = fakeResolver([PUBLIC_V4]);
    await checkEndpointAddress('https://printer.local/', { config: baseConfig, customOfferDomains, resolver });
    expect(resolver.calls).toEqual([]);
  });

  it('asks DNS once, with the normalised name', async () => {
    const resolver = fakeResolver([PUBLIC_V4]);
    await checkEndpointAddress('https://Receiver.ACME.io./x', { config: baseConfig, customOfferDomains, resolver });
    expect(resolver.calls).toEqual(['receiver.acme.io']);
  });
});

/**
 * The most useful reason first: what the host is decides before scheme and port, because no
 * scheme or port makes a local receiver reachable; those refusals point to `offerdesk listen`.
 */
const mostUsefulReason: [url: string, reason: string][] = [
  ['https://localhost:19443/webhooks', 'host name must be public (.localhost names are internal); for a receiver on this machine run "offerdesk listen"'],
  ['http://localhost:3000/webhooks', 'host name must be public (.localhost names are internal); for a receiver on this machine run "offerdesk listen"'],
  ['http://hooks.internal:8080/', 'host name must be public (.internal names are internal); for a receiver on this machine run "offerdesk listen"'],
  ['http://webhooks:3000/', 'host name must be a public domain name (no single-label names); for a receiver on this machine run "offerdesk listen"'],
  ['http://127.0.0.1:3000/', 'IP addresses are not allowed, use a host name; for a receiver on this machine run "offerdesk listen"'],
  ['https://[::1]:8443/', 'IP addresses are not allowed, use a host name; for a receiver on this machine run "offerdesk listen"'],
  ['https://192.168.1.20/', 'IP addresses are not allowed, use a host name; for a receiver on this machine run "offerdesk listen"'],
  ['https://8.8.8.8:8443/', 'IP addresses are not allowed, use a host name'],
  ['http://api.herokuapp.com:8080/', 'host is on a blocked domain (herokuapp.com)'],
  ['http://user@receiver.acme.io:8443/', 'address must use https'],
  ['https://user@receiver.acme.io:8443/', 'address must not contain credentials'],
];

describe('order of the rules', () => {
  it.each(mostUsefulReason)('refuses %s with: %s', async (url, reason) => {
    expect(await check(url)).toEqual({ ok: false, reason });
  });
});

describe('the development mapping', () => {
  it('sends a mapped name to its local address and port without asking DNS', async () => {
    const resolver = fakeResolver(null);
    const verdict = await checkEndpointAddress('https://hooks.test/in', { config: baseConfig, customOfferDomains, resolver });
    expect(verdict).toEqual({ ok: true, hostname: 'hooks.test', addresses: [{ address: '127.0.0.1', family: 4, port: 8443 }] });
    expect(resolver.calls).toEqual([]);
  });

  it('keeps the https rule for a mapped name', async () => {
    expect(await check('http://hooks.test/')).toEqual({ ok: false, reason: 'address must use https' });
  });

  it('keeps the port rule for a mapped name (the URL stays on 443)', async () => {
    expect(await check('https://hooks.test:8443/')).toEqual({ ok: false, reason: 'port 443 only' });
  });

  it('keeps the credentials rule for a mapped name', async () => {
    expect(await check('https://user@hooks.test/')).toEqual({ ok: false, reason: 'address must not contain credentials' });
  });

  it('keeps the blocked-domain rule for a mapped name', async () => {
    const config = { ...baseConfig, blockedDomainSuffixes: ['hooks.test'] };
    const verdict = await checkEndpointAddress('https://hooks.test/', { config, customOfferDomains, resolver: fakeResolver([]) });
    expect(verdict).toEqual({ ok: false, reason: 'host is on a blocked domain (hooks.test)' });
  });

  it('exempts only the mapped names: another .test name is still internal', async () => {
    expect(await check('https://api.hooks.test/')).toEqual({
      ok: false,
      reason: 'host name must be public (.test names are internal); for a receiver on this machine run "offerdesk listen"',
    });
  });
});
