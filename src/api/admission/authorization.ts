import { isWellFormedApiKey } from '../../domain/api-key-format.js';

/** openapi.yaml "Limits": "Authorization header length 256 characters; longer is not evaluated, 401". */
export const MAX_AUTHORIZATION_LENGTH = 256;

/**
 * Step 3 of openapi.yaml "Order of checks": the key's presence and form, decided without a lookup.
 * Returns the presented key, or null for a missing header, another scheme, an overlong header
 * or a key of the wrong form (all of them the same 401).
 */
export function presentedKey(header: string | undefined): string | null {
  if (header === undefined || header.length > MAX_AUTHORIZATION_LENGTH) return null;
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (!match) return null;
  const key = match[1]!;
  return isWellFormedApiKey(key) ? key : null;
}
