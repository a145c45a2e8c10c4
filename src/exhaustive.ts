/**
 * A list of values that must name every member of a union from the document, and nothing else
 * (a shared leaf, so that the layers below the contract import only the contract's types):
 * `exhaustive<OfferStatus>()(['draft', ...])` fails the typecheck when openapi.yaml adds a status.
 */
export function exhaustive<T extends string>() {
  return <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : { missing: Exclude<T, L[number]> })) => list;
}
