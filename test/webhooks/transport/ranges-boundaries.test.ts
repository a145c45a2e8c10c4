import { describe, expect, it } from 'vitest';
import { refusedAddressKind } from '../../../src/webhooks/transport/ranges.js';

/**
 * The special-purpose ranges a webhook is never sent to (the endpoint address rules: IANA's IPv4
 * and IPv6 Special-Purpose Address Registries, and IPv6 only within global unicast 2000::/3), each
 * met at its first and last address and one address outside on either side. null is public.
 * test/webhooks/transport/address-rules.test.ts has one address inside each row; these are the edges.
 */

const edges: [address: string, kind: string | null][] = [
  // 192.88.99.0/24, the retired 6to4 relay anycast (RFC 7526).
  ['192.88.98.255', null],
  ['192.88.99.0', '6to4 relay anycast'],
  ['192.88.99.255', '6to4 relay anycast'],
  ['192.88.100.0', null],
  // 100.64.0.0/10, carrier-grade NAT.
  ['100.63.255.255', null],
  ['100.64.0.0', 'carrier-grade NAT'],
  ['100.127.255.255', 'carrier-grade NAT'],
  ['100.128.0.0', null],
  // 172.16.0.0/12.
  ['172.15.255.255', null],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', null],
  // 198.18.0.0/15, benchmarking.
  ['198.17.255.255', null],
  ['198.18.0.0', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.20.0.0', null],
  // 169.254.169.254 is named before the link-local range that holds it.
  ['169.254.169.253', 'link-local'],
  ['169.254.169.254', 'cloud metadata'],
  ['169.254.169.255', 'link-local'],
  // 224.0.0.0/4 multicast, then 240.0.0.0/4 reserved up to the broadcast address.
  ['223.255.255.255', null],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],

  // 2001::/32 Teredo inside 2001::/23, IETF protocol assignments (RFC 2928).
  ['2001::', 'Teredo'],
  ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'Teredo'],
  ['2001:1::', 'IETF protocol assignments'],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'IETF protocol assignments'],
  ['2001:200::', null],
  ['2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  // 2001:db8::/32, documentation.
  ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['2001:db8::', 'documentation'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['2001:db9::', null],
  // 3fff::/20, documentation (RFC 9637), at the top of global unicast.
  ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  ['3fff::', 'documentation'],
  ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['3fff:1000::', null],
  ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', null],
  // 2000::/3, global unicast: everything outside it is refused.
  ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not global unicast'],
  ['2000::', null],
  ['4000::', 'not global unicast'],
  // 64:ff9b:1::/48, local-use NAT64, beside the well-known NAT64 prefix judged by its IPv4.
  ['64:ff9b:1::', 'local-use NAT64'],
  ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use NAT64'],
  ['64:ff9b:2::', 'not global unicast'],
];

/** IPv6 forms that carry an IPv4 address are judged by it, and the refusal names the form. */
const embedded: [address: string, kind: string | null][] = [
  ['::ffff:8.8.8.8', null],
  ['::ffff:192.88.99.1', '6to4 relay anycast (IPv4-mapped)'],
  ['64:ff9b::808:808', null],
  ['64:ff9b::c058:6301', '6to4 relay anycast (NAT64)'],
  ['2002:808:808::1', null],
  ['2002:c058:6301::1', '6to4 relay anycast (6to4)'],
  // Bytes 2..5 of a 6to4 address are its IPv4 address, not the bytes after them.
  ['2002:808:808:a00:1::', null],
  ['2002:a00:1:808:808::', 'private (6to4)'],
];

const notAddresses = ['', '1.2.3', '127.1', '0177.0.0.1', 'receiver.acme.io', '%eth0'];

describe('special-purpose ranges, at their edges', () => {
  it.each(edges)('%s is %s', (address, kind) => {
    expect(refusedAddressKind(address)).toBe(kind);
  });

  it.each(embedded)('%s is %s', (address, kind) => {
    expect(refusedAddressKind(address)).toBe(kind);
  });

  it.each(notAddresses)('%j is not an IP address', (text) => {
    expect(refusedAddressKind(text)).toBe('not an IP address');
  });

  it('a zone index is read past: fe80::1%eth0 is link-local', () => {
    expect(refusedAddressKind('fe80::1%eth0')).toBe('link-local');
  });

  it('an IPv4-compatible address written with a dotted quad is that form, not IPv4-mapped', () => {
    expect(refusedAddressKind('::8.8.8.8')).toBe('IPv4-compatible (deprecated)');
  });
});
