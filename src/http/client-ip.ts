import ipaddr from 'ipaddr.js';

/**
 * SPEC.md "API limits": the per-IP limit counts "IPv4 per address, IPv6 per /64 network".
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, as Node reports IPv4 clients on dual-stack
 * sockets) count as the IPv4 address they carry.
 */
export function ipLimitKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.kind() === 'ipv4') return `4:${parsed.toString()}`;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `6:${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
