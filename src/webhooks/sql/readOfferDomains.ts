import type { Queryable } from '../../db/connect.js';

/**
 * Every workspace's verified custom offer-page domain: no endpoint may point at one (console-api.yaml
 * "Endpoint addresses"). An unverified claim refuses nothing (src/domain/offer-domain.ts).
 */
export async function readOfferDomains(sql: Queryable): Promise<string[]> {
  const rows = await sql<{ offer_domain: string }[]>`
    select offer_domain from workspaces where offer_domain_verified_at is not null`;
  return rows.map((row) => row.offer_domain);
}
