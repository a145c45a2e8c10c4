import type { Queryable } from '../db/connect.js';

/**
 * openapi.yaml "Offer": value is the "Recommended package of the first visible pricing section; if
 * none, the first package; if none, amount 0". We read it as: take the first visible pricing
 * section (lowest position); its recommended package, else its first package (lowest position);
 * if there is no visible pricing section, or it has no packages, 0. Later sections are never
 * consulted, even when the first visible pricing section is empty.
 *
 * The rule lives in this one statement; it runs in the transaction that changes the sections,
 * so offers.value_amount never disagrees with them. The seed computes the same rule in bulk and
 * its test checks the result against this statement.
 */
export async function recomputeOfferValues(tx: Queryable, offerIds: string[]): Promise<void> {
  await tx`
    update offers o
       set value_amount = coalesce((
             select p.amount
               from offer_packages p
              where p.offer_id = o.id
                and p.section_position = (
                      select min(s.position)
                        from offer_sections s
                       where s.offer_id = o.id and s.kind = 'pricing' and s.visible)
              order by p.recommended desc, p.position
              limit 1), 0)
     where o.id = any(${offerIds}::uuid[])`;
}
