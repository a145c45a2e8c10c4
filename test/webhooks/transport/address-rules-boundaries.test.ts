import { describe, expect, it } from 'vitest';
import { loadConfig, type WebhookConfig } from '../../../src/config.js';
import { checkEndpointAddress, normaliseEndpointUrl, normaliseHostname, type Resolver } from '../../../src/webhooks/transport/address-rules.js';

/**
 * The bounds of the endpoint address rules, each met one below, at and one above, with the numbers
 * written out (a wrong constant fails too): an address of at most 2,048 characters, a host name of
 * at most 253 characters in labels of at most 63 (the DNS limits, RFC 1035 2.3.4), and the
 * resolver's answers (docs/architecture.md and test/webhooks/transport/address-rules.test.ts have
 * the rules themselves).
 */

const PUBLIC_V4 = '93.184.215.14';

const config: WebhookConfig = {
  ...loadConfig({}).webhooks,
  devResolve: new Map([
    ['hooks.dev-v4.io', { address: '127.0.0.1', port: 8443 }],
    ['hooks.dev-v6.io', { address: '::1', port: 9443 }],
    ['hooks.dev-broken.io', { address: 'not-an-address', port: 8443 }],
  ]),
  blockedDomainSuffixes: ['..blocked-by-dots.io'],
};

const publicResolver: Resolver = { resolve: async () => [{ address: PUBLIC_V4, family: 4 }] };
function failingResolver(error: Error): Resolver {
  return {
    async resolve() {
      throw error;
    },
  };
}

/** Custom offer-page domains as workspaces typed them: spacing and case are not theirs to vary. */
const customOfferDomains = ['  Offers.Customer-Two.com. '];

async function check(url: string, resolver: Resolver = publicResolver) {
  return checkEndpointAddress(url, { config, customOfferDomains, resolver });
}

/** A name of exactly `length` characters ending in `.io`, in labels of 63 but the first. */
function nameOfLength(length: number): string {
  let name = 'io';
  while (name.length < length) name = `${'a'.repeat(Math.min(63, length - name.length - 1))}.${name}`;
  return name;
}

describe('address length: at most 2,048 characters', () => {
  const urlOfLength = (length: number) => {
    const start = 'https://receiver.acme.io/';
    return start + 'a'.repeat(length - start.length);
  };

  it.each([2047, 2048])('an address of %i characters is accepted', async (length) => {
    expect(urlOfLength(length)).toHaveLength(length);
    expect(await check(urlOfLength(length))).toMatchObject({ ok: true });
  });

  it('an address of 2,049 characters is refused before it is read', async () => {
    expect(await check(urlOfLength(2049))).toEqual({ ok: false, reason: 'address is longer than 2048 characters' });
  });
});

describe('the stored form of an address: at most 2,048 characters too', () => {
  const start = 'https://receiver.acme.io/';
  it.each([2047, 2048])('a normal form of %i characters is kept', (length) => {
    const url = start + 'a'.repeat(length - start.length);
    expect(normaliseEndpointUrl(url)).toBe(url);
  });

  it('a normal form of 2,049 characters has none', () => {
    // The upper-case host is lowered and the fragment dropped: neither shortens the path.
    const normal = start + 'a'.repeat(2049 - start.length);
    expect(normaliseEndpointUrl(`HTTPS://RECEIVER.ACME.IO/${normal.slice(start.length)}#top`)).toBeNull();
  });

  it('the fragment, never sent, is not part of it', () => {
    expect(normaliseEndpointUrl('https://receiver.acme.io/hooks?a=1#top')).toBe('https://receiver.acme.io/hooks?a=1');
  });

  it('text that is not a URL has none', () => {
    expect(normaliseEndpointUrl('receiver.acme.io/hooks')).toBeNull();
  });
});

describe('the form names are compared in', () => {
  it.each([
    ['  Offers.Customer-Two.COM  ', 'offers.customer-two.com'],
    ['offers.customer-two.com.', 'offers.customer-two.com'],
    ['Bücher.de', 'xn--bcher-kva.de'],
  ])('%j is %j', (name, normal) => {
    expect(normaliseHostname(name)).toBe(normal);
  });

  it.each(['', '   ', 'exa mple.com', 'a..b%zz'])('%j is no host name', (name) => {
    expect(normaliseHostname(name)).toBeNull();
  });

  it('a custom offer-page domain typed with spaces and capitals still refuses its names', async () => {
    expect(await check('https://a.offers.customer-two.com/')).toEqual({ ok: false, reason: "host is a workspace's custom offer-page domain" });
  });
});

describe('host name length: at most 253 characters', () => {
  it.each([252, 253])('a name of %i characters is accepted', async (length) => {
    const name = nameOfLength(length);
    expect(name).toHaveLength(length);
    expect(await check(`https://${name}/`)).toMatchObject({ ok: true, hostname: name });
  });

  it('a name of 253 characters with the root\'s trailing dot is accepted', async () => {
    const name = nameOfLength(253);
    expect(await check(`https://${name}./`)).toMatchObject({ ok: true, hostname: name });
  });

  it('a name of 254 characters is refused', async () => {
    const name = nameOfLength(254);
    expect(name).toHaveLength(254);
    expect(await check(`https://${name}/`)).toEqual({ ok: false, reason: 'host name is not valid' });
  });
});

describe('label length: at most 63 characters', () => {
  it.each([62, 63])('a first label of %i characters is accepted', async (length) => {
    expect(await check(`https://${'a'.repeat(length)}.acme.io/`)).toMatchObject({ ok: true });
  });

  it('a first label of 64 characters is refused', async () => {
    expect(await check(`https://${'a'.repeat(64)}.acme.io/`)).toEqual({ ok: false, reason: 'host name is not valid' });
  });

  it('a last label of 64 characters is refused', async () => {
    expect(await check(`https://acme.${'a'.repeat(64)}/`)).toEqual({ ok: false, reason: 'host name is not valid' });
  });

  it('a name that is only the root\'s dot is refused', async () => {
    expect(await check('https://./')).toEqual({ ok: false, reason: 'host name is not valid' });
  });
});

describe('numeric top-level labels are address tricks', () => {
  it.each(['https://receiver.acme.0x/', 'https://receiver.acme.0x1f/', 'https://receiver.acme.0X1F/', 'https://receiver.acme.09/'])(
    '%s is refused',
    async (url) => {
      // The WHATWG URL parser reads a host whose last label is a number as an IPv4 address and
      // refuses these as invalid ones, before the address rules' own numeric check.
      expect(await check(url)).toEqual({ ok: false, reason: 'address is not a valid URL' });
    },
  );

  it.each([
    'https://receiver.acme.x0/',
    'https://receiver.acme.io1/',
    'https://receiver.acme.1io/',
    'https://receiver.acme.0xyz/',
    'https://receiver.0x.io/',
    'https://receiver.1.io/',
  ])(
    '%s is a name: a number only in another label, or only part of the last, is no address',
    async (url) => {
      expect(await check(url)).toMatchObject({ ok: true });
    },
  );
});

describe('schemes: only https, and any other is refused for its scheme', () => {
  it.each(['mailto:hooks@acme.io', 'ftp://localhost/', 'file:///etc/passwd', 'data:text/plain,hi'])('%s is refused for its scheme', async (url) => {
    expect(await check(url)).toEqual({ ok: false, reason: 'address must use https' });
  });
});

describe('credentials: neither a user nor a password', () => {
  it.each([
    ['a user and a password', 'https://user:pass@receiver.acme.io/'],
    ['a user alone', 'https://user@receiver.acme.io/'],
    ['a password without a user', 'https://:pass@receiver.acme.io/'],
  ])('%s is refused', async (_name, url) => {
    expect(await check(url)).toEqual({ ok: false, reason: 'address must not contain credentials' });
  });
});

describe('the resolver\'s errors', () => {
  it.each(['ENOTFOUND', 'ENODATA'])('%s: the name does not resolve', async (code) => {
    const verdict = await check('https://receiver.acme.io/', failingResolver(Object.assign(new Error(code), { code })));
    expect(verdict).toEqual({ ok: false, reason: 'host name does not resolve' });
  });

  it('another error is a failed lookup, with its code', async () => {
    const verdict = await check('https://receiver.acme.io/', failingResolver(Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' })));
    expect(verdict).toEqual({ ok: false, reason: 'host name lookup failed (ESERVFAIL)' });
  });

  it('an error without a code is a failed lookup', async () => {
    expect(await check('https://receiver.acme.io/', failingResolver(new Error('resolver gone')))).toEqual({
      ok: false,
      reason: 'host name lookup failed',
    });
  });
});

describe('operator-blocked suffixes are read without their leading dots', () => {
  it.each(['https://blocked-by-dots.io/', 'https://a.blocked-by-dots.io/'])('%s is refused', async (url) => {
    expect(await check(url)).toEqual({ ok: false, reason: 'host is on a blocked domain (blocked-by-dots.io)' });
  });

  it('a name that only ends in the same letters is not under it', async () => {
    expect(await check('https://notblocked-by-dots.io/')).toMatchObject({ ok: true });
  });
});

describe('development mappings (WEBHOOK_DEV_RESOLVE)', () => {
  it('an IPv4 mapping is used as it is, with its port', async () => {
    expect(await check('https://hooks.dev-v4.io/')).toEqual({
      ok: true,
      hostname: 'hooks.dev-v4.io',
      addresses: [{ address: '127.0.0.1', family: 4, port: 8443 }],
    });
  });

  it('an IPv6 mapping is used as it is, with its port', async () => {
    expect(await check('https://hooks.dev-v6.io/')).toEqual({
      ok: true,
      hostname: 'hooks.dev-v6.io',
      addresses: [{ address: '::1', family: 6, port: 9443 }],
    });
  });

  it('a mapping to something that is not an address is refused', async () => {
    expect(await check('https://hooks.dev-broken.io/')).toEqual({ ok: false, reason: 'development mapping has no valid address' });
  });

  it('a mapped name still needs https', async () => {
    expect(await check('http://hooks.dev-v4.io/')).toEqual({ ok: false, reason: 'address must use https' });
  });
});
