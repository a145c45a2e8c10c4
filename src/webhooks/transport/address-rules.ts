import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import type { WebhookConfig } from '../../config.js';
import { type Resolver, systemResolver } from './resolver.js';
import { refusedAddressKind } from './ranges.js';

export type { Resolver } from './resolver.js';

/**
 * Address rules for webhook endpoints (docs/webhook-delivery.md "Address rules" and openapi.yaml "Webhook request").
 * The same check runs when an endpoint is added and again before every attempt; the sender then
 * connects only to the addresses returned here, so a name that rebinds between check and connect
 * gains nothing.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
  port: number;
}

export type AddressVerdict =
  | { ok: true; hostname: string; addresses: ResolvedAddress[] }
  | { ok: false; reason: string };

export interface AddressContext {
  config: WebhookConfig;
  /** Every workspace's custom offer-page domain; each is refused with its subdomains. */
  customOfferDomains: string[];
  resolver?: Resolver;
}

export const HTTPS_PORT = 443;
/** Longer addresses are refused before parsing; no real receiver needs more. */
export const MAX_URL_LENGTH = 2048;
const MAX_HOSTNAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

/**
 * Names that never resolve to a public receiver; each is refused as a name and as a suffix.
 * - IANA "Special-Use Domain Names": localhost, local (RFC 6762, so `cluster.local` too), test,
 *   example and example.com/.net/.org, invalid (RFC 6761), onion (RFC 7686), alt (RFC 9476),
 *   home.arpa (RFC 8375) and the whole `arpa` tree (reverse DNS, ipv4only, resolver, service).
 * - Names ICANN will not delegate: internal (reserved for private use), home, corp and mail
 *   (name-collision risk).
 * - The usual private and cluster suffixes: lan, intranet, private, localdomain, svc (Kubernetes
 *   services, `svc.cluster.local` shortened), cluster (the bare cluster domain), consul.
 */
export const INTERNAL_NAME_SUFFIXES = [
  // IANA special-use
  'localhost',
  'local',
  'test',
  'example',
  'example.com',
  'example.net',
  'example.org',
  'invalid',
  'onion',
  'alt',
  'home.arpa',
  'arpa',
  // never delegated
  'internal',
  'home',
  'corp',
  'mail',
  // private networks and clusters
  'lan',
  'intranet',
  'private',
  'localdomain',
  'svc',
  'cluster',
  'consul',
];

function refuse(reason: string): AddressVerdict {
  return { ok: false, reason };
}

/**
 * Lowercase, IDNA (punycode) and without one trailing dot: the form every comparison uses.
 * Returns null for text that is not a usable host name.
 */
export function normaliseHostname(name: string): string | null {
  let ascii = domainToASCII(name.trim());
  if (!ascii) return null;
  if (ascii.endsWith('.')) ascii = ascii.slice(0, -1);
  return ascii.toLowerCase();
}

function isUnder(hostname: string, domain: string): boolean {
  return hostname === domain || hostname.endsWith(`.${domain}`);
}

function hostnameProblem(hostname: string): string | null {
  if (hostname.length === 0 || hostname.length > MAX_HOSTNAME_LENGTH) return 'host name is not valid';
  const labels = hostname.split('.');
  if (labels.some((label) => label.length === 0 || label.length > MAX_LABEL_LENGTH)) return 'host name is not valid';
  // The URL parser turns numeric hosts into IPv4 (decimal, octal, hex, short forms); whatever is
  // still numeric in the last label is an address trick, never a top-level domain.
  if (/^(0x[0-9a-f]*|[0-9]+)$/i.test(labels[labels.length - 1]!)) return 'IP addresses are not allowed, use a host name';
  return null;
}

/** Added to refusals of loopback, private and internal hosts: the way to receive on a laptop. */
export const LOCAL_RECEIVER_HINT = 'for a receiver on this machine run "offerdesk listen"';

/**
 * The form an endpoint address is stored and shown in (WHATWG URL serialisation): scheme and host
 * lowercase, the host in punycode, no default port, percent-encoding made canonical, and without
 * the fragment, which is never sent. Null when the address is not a URL or its normal form exceeds
 * MAX_URL_LENGTH (punycode can lengthen it). Call it on an address checkEndpointAddress accepted.
 */
export function normaliseEndpointUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  parsed.hash = '';
  const normal = parsed.href;
  return normal.length > MAX_URL_LENGTH ? null : normal;
}

/**
 * Checks `url` against every rule and, when it passes, returns the normalised host name and the
 * exact addresses (with port) that were found public. `reason` is one short English line that
 * names the rule. The order gives the most useful reason first: what the host is (an IP address,
 * a domain no endpoint may use, an internal name: no scheme or port would fix that, and local
 * hosts point to `offerdesk listen`), then scheme, credentials and port, and DNS last.
 */
export async function checkEndpointAddress(url: string, ctx: AddressContext): Promise<AddressVerdict> {
  if (url.length > MAX_URL_LENGTH) return refuse(`address is longer than ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('address is not a valid URL');
  }
  // Only http(s) addresses have a host to judge; any other scheme is refused for its scheme.
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return refuse('address must use https');
  const raw = parsed.hostname;
  const literal = raw.startsWith('[') ? raw.slice(1, -1) : raw.endsWith('.') ? raw.slice(0, -1) : raw;
  if (isIP(literal) !== 0) {
    const local = refusedAddressKind(literal) !== null;
    return refuse(`IP addresses are not allowed, use a host name${local ? `; ${LOCAL_RECEIVER_HINT}` : ''}`);
  }
  const hostname = literal;
  const problem = hostnameProblem(hostname);
  if (problem) return refuse(problem);

  for (const suffix of ctx.config.blockedDomainSuffixes) {
    const domain = normaliseHostname(suffix.replace(/^\.+/, ''));
    if (domain && isUnder(hostname, domain)) return refuse(`host is on a blocked domain (${domain})`);
  }
  for (const custom of ctx.customOfferDomains) {
    const domain = normaliseHostname(custom);
    if (domain && isUnder(hostname, domain)) return refuse("host is a workspace's custom offer-page domain");
  }

  // Development mapping: exempt from the internal-name and public-address rules only.
  const mapped = ctx.config.devResolve.get(hostname);
  if (!mapped) {
    for (const suffix of INTERNAL_NAME_SUFFIXES) {
      if (isUnder(hostname, suffix)) return refuse(`host name must be public (.${suffix} names are internal); ${LOCAL_RECEIVER_HINT}`);
    }
    if (!hostname.includes('.')) return refuse(`host name must be a public domain name (no single-label names); ${LOCAL_RECEIVER_HINT}`);
  }

  if (parsed.protocol !== 'https:') return refuse('address must use https');
  if (parsed.username !== '' || parsed.password !== '') return refuse('address must not contain credentials');
  // The URL parser drops an explicit :443 (the https default), so any port left is another one.
  if (parsed.port !== '') return refuse(`port ${HTTPS_PORT} only`);

  if (mapped) {
    const family = isIP(mapped.address);
    if (family === 0) return refuse('development mapping has no valid address');
    return { ok: true, hostname, addresses: [{ address: mapped.address, family: family === 6 ? 6 : 4, port: mapped.port }] };
  }

  let answers: { address: string; family: 4 | 6 }[];
  try {
    answers = await (ctx.resolver ?? systemResolver).resolve(hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return refuse('host name does not resolve');
    return refuse(`host name lookup failed${code ? ` (${code})` : ''}`);
  }
  if (answers.length === 0) return refuse('host name does not resolve');
  const addresses: ResolvedAddress[] = [];
  for (const answer of answers) {
    // Only strict dotted-quad / RFC 4291 text is accepted from a resolver, and the family is
    // taken from the text, so what is checked is exactly what the socket will be given.
    const family = isIP(answer.address);
    const kind = family === 0 ? 'not an IP address' : refusedAddressKind(answer.address);
    if (kind !== null) return refuse(`host name resolves to a non-public address (${kind}: ${answer.address})`);
    addresses.push({ address: answer.address, family: family === 6 ? 6 : 4, port: HTTPS_PORT });
  }
  return { ok: true, hostname, addresses };
}
