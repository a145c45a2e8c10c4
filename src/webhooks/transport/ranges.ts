import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Addresses a webhook may never be sent to (docs/webhook-delivery.md "Address rules": the address
 * rules). Our own table with names, so a refusal says which rule hit; the first matching row wins,
 * so the specific rows (cloud metadata) come before the ranges that contain them. IPv6 is further limited to global
 * unicast (2000::/3): everything outside it is refused even when no row names it.
 */
interface RefusedRange {
  cidr: string;
  name: string;
}

const REFUSED_V4: RefusedRange[] = [
  { cidr: '169.254.169.254/32', name: 'cloud metadata' },
  { cidr: '0.0.0.0/8', name: 'unspecified' },
  { cidr: '10.0.0.0/8', name: 'private' },
  { cidr: '100.64.0.0/10', name: 'carrier-grade NAT' },
  { cidr: '127.0.0.0/8', name: 'loopback' },
  { cidr: '169.254.0.0/16', name: 'link-local' },
  { cidr: '172.16.0.0/12', name: 'private' },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', name: 'documentation' },
  { cidr: '192.88.99.0/24', name: '6to4 relay anycast' },
  { cidr: '192.168.0.0/16', name: 'private' },
  { cidr: '198.18.0.0/15', name: 'benchmarking' },
  { cidr: '198.51.100.0/24', name: 'documentation' },
  { cidr: '203.0.113.0/24', name: 'documentation' },
  { cidr: '224.0.0.0/4', name: 'multicast' },
  { cidr: '255.255.255.255/32', name: 'broadcast' },
  { cidr: '240.0.0.0/4', name: 'reserved' },
];

const REFUSED_V6: RefusedRange[] = [
  { cidr: 'fd00:ec2::254/128', name: 'cloud metadata' },
  { cidr: '::/128', name: 'unspecified' },
  { cidr: '::1/128', name: 'loopback' },
  { cidr: '::/96', name: 'IPv4-compatible (deprecated)' },
  { cidr: '100::/64', name: 'discard-only' },
  // 64:ff9b::/96 and 2002::/16 embed an IPv4 address and are judged by it (see embeddedIPv4).
  { cidr: '64:ff9b:1::/48', name: 'local-use NAT64' },
  { cidr: '2001::/32', name: 'Teredo' },
  { cidr: '2001::/23', name: 'IETF protocol assignments' },
  { cidr: '2001:db8::/32', name: 'documentation' },
  { cidr: '3fff::/20', name: 'documentation' },
  { cidr: 'fc00::/7', name: 'unique local' },
  { cidr: 'fe80::/10', name: 'link-local' },
  { cidr: 'fec0::/10', name: 'site-local (deprecated)' },
  { cidr: 'ff00::/8', name: 'multicast' },
];

type Parsed<T> = { range: [T, number]; name: string };
const V4 = REFUSED_V4.map(({ cidr, name }) => ({ range: ipaddr.IPv4.parseCIDR(cidr), name }));
const V6 = REFUSED_V6.map(({ cidr, name }) => ({ range: ipaddr.IPv6.parseCIDR(cidr), name }));
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const IPV4_MAPPED = ipaddr.IPv6.parseCIDR('::ffff:0:0/96');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');

function firstMatch<T extends ipaddr.IPv4 | ipaddr.IPv6>(address: T, table: Parsed<T>[]): string | null {
  for (const row of table) if (address.match(row.range)) return row.name;
  return null;
}

/** IPv4 address carried inside an IPv6 one, with the form's name, for the forms that have one. */
function embeddedIPv4(address: ipaddr.IPv6): { v4: ipaddr.IPv4; form: string } | null {
  const bytes = address.toByteArray();
  if (address.match(IPV4_MAPPED)) return { v4: new ipaddr.IPv4(bytes.slice(12, 16)), form: 'IPv4-mapped' };
  if (address.match(NAT64_WELL_KNOWN)) return { v4: new ipaddr.IPv4(bytes.slice(12, 16)), form: 'NAT64' };
  if (address.match(SIX_TO_FOUR)) return { v4: new ipaddr.IPv4(bytes.slice(2, 6)), form: '6to4' };
  return null;
}

/**
 * `null` when the address is public, otherwise the name of the rule that refuses it, e.g.
 * "loopback" or "private (IPv4-mapped)". Text that is not an IP address is refused as well.
 */
export function refusedAddressKind(text: string): string | null {
  // Zone indexes (fe80::1%eth0) only occur on link-local addresses, which are refused anyway.
  const bare = text.replace(/%.*$/, '');
  // Strict forms only (no "127.1" or octal), as a socket would take them.
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // ipaddr.js reads "::1.2.3.4" as IPv4-mapped; the URL parser's hex serialisation is exact.
    parsed = ipaddr.parse(family === 6 ? new URL(`http://[${bare}]/`).hostname.slice(1, -1) : bare);
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv4') return firstMatch(parsed as ipaddr.IPv4, V4);
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const inner = firstMatch(embedded.v4, V4);
    return inner === null ? null : `${inner} (${embedded.form})`;
  }
  const named = firstMatch(v6, V6);
  if (named) return named;
  return v6.match(GLOBAL_UNICAST_V6) ? null : 'not global unicast';
}
