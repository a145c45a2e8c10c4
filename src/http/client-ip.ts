import ipaddr from 'ipaddr.js';

/**
 * The keys of addresses seen recently, so an address is parsed (ipaddr.js) once rather than on
 * every request from it. Bounded in count and in length (an address from X-Forwarded-For under
 * `trust proxy` is the client's text): a flood of distinct addresses empties it, never grows it.
 */
const KNOWN_ADDRESSES = 10_000;
const LONGEST_KNOWN_ADDRESS = 64;
const known = new Map<string, string>();

/**
 * openapi.yaml "Limits": the per-IP limit counts "IPv4 per address, IPv6 per /64 network".
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, as Node reports IPv4 clients on dual-stack
 * sockets) count as the IPv4 address they carry.
 */
export function ipLimitKey(address: string | undefined): string {
  if (!address) return 'unknown';
  let key = known.get(address);
  if (key === undefined) {
    key = limitKeyOf(address);
    if (address.length <= LONGEST_KNOWN_ADDRESS) {
      if (known.size >= KNOWN_ADDRESSES) known.clear();
      known.set(address, key);
    }
  }
  return key;
}

function limitKeyOf(address: string): string {
  if (!ipaddr.isValid(address)) return 'unknown';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.kind() === 'ipv4') return `4:${parsed.toString()}`;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `6:${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
