import { DOMAIN_ERRORS, DomainError } from '../../domain/errors.js';
import { checkEndpointAddress, MAX_URL_LENGTH, normaliseEndpointUrl } from './address-rules.js';
import type { ManagementDeps } from '../management/deps.js';
import { readOfferDomains } from '../sql/readOfferDomains.js';

/** An endpoint address refused by a rule; `reason` is the rule's own words (the console shows it at the field). */
export class AddressRefused extends DomainError {
  constructor(readonly reason: string) {
    super('OD_ERR_ENDPOINT_ADDRESS', DOMAIN_ERRORS.OD_ERR_ENDPOINT_ADDRESS.message(reason));
  }
}

/**
 * The address rules of console-api.yaml "Endpoint addresses" (https, port 443, public name
 * resolving only to public addresses, blocked domains, every workspace's custom offer domain),
 * for adding and for changing an endpoint alike. Returns the address in its WHATWG
 * serialisation (lowercase host, punycode, no default port, no fragment), so one address has one
 * spelling in the list and the log.
 */
export async function requireEndpointAddress(deps: ManagementDeps, rawUrl: unknown): Promise<string> {
  const url = typeof rawUrl === 'string' ? rawUrl.trim() : '';
  const verdict = await checkEndpointAddress(url, {
    config: deps.config,
    customOfferDomains: await readOfferDomains(deps.sql),
    resolver: deps.resolver,
  });
  if (!verdict.ok) throw new AddressRefused(verdict.reason);
  const normal = normaliseEndpointUrl(url);
  if (normal === null) throw new AddressRefused(`address is longer than ${MAX_URL_LENGTH} characters`);
  return normal;
}

