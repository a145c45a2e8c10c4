import { Resolver as DnsResolver } from 'node:dns/promises';
import type { Clock } from '../clock.js';
import type { Queryable, Sql } from '../db/connect.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { requireRole, requireWorkspace } from './accounts.js';
import { invalidInput } from './errors.js';
import { checkOfferDomain, offerDomainToken } from './offer-domain-rules.js';

/**
 * A workspace's custom offer-page domain. console-api.yaml "Endpoint addresses" refuses endpoints
 * on "a custom domain a workspace uses for its offer pages"; since that refusal reaches every
 * tenant's endpoints, a domain counts only once the workspace has shown it controls it (a DNS TXT
 * record with a token, as hosting platforms verify custom domains), and public suffixes, the
 * hosting-platform domains and the service's own domains can never be claimed.
 */

/** The record a workspace creates: `_offerdesk-verify.<domain>` TXT `offerdesk-verify=<token>`. */
export const VERIFY_RECORD_LABEL = '_offerdesk-verify';
export const VERIFY_VALUE_PREFIX = 'offerdesk-verify=';
/** Only owners set and verify the domain: it changes what every tenant's endpoints may use. */
const DOMAIN_ROLES = ['owner'] as const;
const DNS_TIMEOUT_MS = 3_000;
const DNS_TRIES = 2;

/** TXT lookups; tests inject answers. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

export function systemTxtResolver(): TxtResolver {
  const resolver = new DnsResolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
  return { resolveTxt: (name) => resolver.resolveTxt(name) };
}

export interface OfferDomainView {
  workspace_id: string;
  domain: string | null;
  verified: boolean;
  verified_at: string | null;
  /** The DNS record that proves control; null without a domain. */
  record: { name: string; type: 'TXT'; value: string } | null;
}

interface DomainRow {
  id: string;
  offer_domain: string | null;
  offer_domain_token: string | null;
  offer_domain_verified_at: Date | null;
}

function toView(row: DomainRow): OfferDomainView {
  return {
    workspace_id: row.id,
    domain: row.offer_domain,
    verified: row.offer_domain_verified_at !== null,
    verified_at: row.offer_domain_verified_at?.toISOString() ?? null,
    record:
      row.offer_domain && row.offer_domain_token
        ? { name: `${VERIFY_RECORD_LABEL}.${row.offer_domain}`, type: 'TXT', value: `${VERIFY_VALUE_PREFIX}${row.offer_domain_token}` }
        : null,
  };
}

export async function showOfferDomain(sql: Queryable, workspaceId: string): Promise<OfferDomainView> {
  const workspace = await requireWorkspace(sql, workspaceId);
  const [row] = await sql<DomainRow[]>`
    select id, offer_domain, offer_domain_token, offer_domain_verified_at from workspaces where id = ${workspace.id}::uuid`;
  return toView(row!);
}

/**
 * Sets (or, with null, clears) the workspace's offer domain. A new domain starts unverified with a
 * new token; setting the domain it already has changes nothing (its token and verification stay).
 */
export async function setOfferDomain(
  sql: Sql,
  input: { workspaceId: string; domain: string | null; actorId: string | null; blockedSuffixes?: readonly string[] },
): Promise<OfferDomainView> {
  const workspace = await requireWorkspace(sql, input.workspaceId);
  await requireRole(sql, { workspaceId: workspace.id, accountId: input.actorId, roles: DOMAIN_ROLES });
  const domain = input.domain === null ? null : checkOfferDomain(input.domain, input.blockedSuffixes);
  try {
    await sql`
      update workspaces
         set offer_domain_token = case when offer_domain is not distinct from ${domain} then offer_domain_token
                                       when ${domain}::text is null then null else ${offerDomainToken()} end,
             offer_domain_verified_at = case when offer_domain is not distinct from ${domain} then offer_domain_verified_at end,
             offer_domain = ${domain}
       where id = ${workspace.id}::uuid`;
  } catch (error) {
    if (isUniqueViolation(error, 'workspaces_offer_domain_key')) {
      throw invalidInput(`offer domain ${domain} is already used by another workspace`);
    }
    throw error;
  }
  return showOfferDomain(sql, workspace.id);
}

/**
 * Looks up `_offerdesk-verify.<domain>` and marks the domain verified when one TXT record holds the
 * workspace's token; from then on no endpoint may use the domain or its subdomains.
 */
export async function verifyOfferDomain(
  sql: Sql,
  clock: Clock,
  input: { workspaceId: string; actorId: string | null; resolver?: TxtResolver },
): Promise<OfferDomainView> {
  const workspace = await requireWorkspace(sql, input.workspaceId);
  await requireRole(sql, { workspaceId: workspace.id, accountId: input.actorId, roles: DOMAIN_ROLES });
  const view = await showOfferDomain(sql, workspace.id);
  if (!view.domain || !view.record) {
    throw invalidInput(`workspace ${workspace.id} has no offer domain; set one with "workspace set-offer-domain"`);
  }
  const { name, value } = view.record;
  let records: string[][];
  try {
    records = await (input.resolver ?? systemTxtResolver()).resolveTxt(name);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ENOTFOUND' && code !== 'ENODATA') {
      throw invalidInput(`the DNS lookup of ${name} failed (${code ?? 'error'}); try again later`);
    }
    records = [];
  }
  // A long TXT value may come in several strings; they form one value.
  if (!records.some((chunks) => chunks.join('').trim() === value)) {
    throw invalidInput(
      `no TXT record ${name} with value "${value}" found (${records.length} TXT record(s) there); ` +
        'create it at your DNS provider, wait for it to appear, and verify again',
    );
  }
  await sql`
    update workspaces set offer_domain_verified_at = ${clock.now()}
     where id = ${workspace.id}::uuid and offer_domain = ${view.domain}`;
  return showOfferDomain(sql, workspace.id);
}
