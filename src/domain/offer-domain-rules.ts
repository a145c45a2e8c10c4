import { randomBytes } from 'node:crypto';
import { parse } from 'tldts';
import { DEFAULT_BLOCKED_DOMAIN_SUFFIXES } from '../config.js';
import { invalidInput } from './errors.js';
import { requireHostname } from './validate.js';

/**
 * What a workspace may claim as its offer-page domain (see offer-domain.ts for why it matters to
 * every tenant). A leaf module: workspace creation and the domain commands both use it.
 */

/** The value a workspace puts into its domain's TXT record to show it controls the domain. */
export function offerDomainToken(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The domain in its stored form (lowercase, no trailing dot), or a refusal saying why: not a host
 * name, a public suffix (Public Suffix List, private section included: `co.uk`, `github.io`), or
 * at or under a blocked suffix (the service's own domains and hosting platforms, config
 * `blockedDomainSuffixes`).
 */
export function checkOfferDomain(raw: unknown, blockedSuffixes: readonly string[] = DEFAULT_BLOCKED_DOMAIN_SUFFIXES): string {
  const domain = requireHostname(typeof raw === 'string' ? raw.trim().replace(/\.$/, '') : raw, 'offer domain');
  const parsed = parse(domain, { allowPrivateDomains: true });
  if (parsed.isIp) throw invalidInput(`offer domain "${domain}" is an IP address; use a domain name`);
  if (parsed.domain === null || parsed.publicSuffix === domain) {
    throw invalidInput(`offer domain "${domain}" is a public suffix (Public Suffix List); use a domain of your own, such as offers.your-company.com`);
  }
  const blocked = blockedSuffixes.find((suffix) => domain === suffix || domain.endsWith(`.${suffix}`));
  if (blocked) throw invalidInput(`offer domain "${domain}" is under ${blocked}, a hosting-platform or service domain; use a domain of your own`);
  return domain;
}
