import { hash, randomInt } from 'node:crypto';

/** openapi.yaml "Authentication": "Keys begin with a fixed service-specific prefix followed by `live_`". */
export const API_KEY_PREFIX = 'odk_live_';
/** Random part: base62, 40 characters (about 238 bits). Accepted on input: 32 to 64 characters. */
export const API_KEY_RANDOM_LENGTH = 40;
const WELL_FORMED_KEY = /^odk_live_[0-9A-Za-z]{32,64}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function generateApiKey(): string {
  let random = '';
  for (let i = 0; i < API_KEY_RANDOM_LENGTH; i++) random += BASE62[randomInt(BASE62.length)];
  return API_KEY_PREFIX + random;
}

/** The form check of openapi.yaml "Order of checks" step 3: decided without any lookup. */
export function isWellFormedApiKey(candidate: string): boolean {
  return WELL_FORMED_KEY.test(candidate);
}

/** Keys are stored only as this hash (SHA-256 of the whole key). */
export function hashApiKey(key: string): Buffer {
  return Buffer.from(hashApiKeyText(key), 'base64url');
}

/**
 * The same hash as base64url text, as the rate limiter keys it. One call without the Hash object
 * createHash builds, and text first: Node makes a digest's text faster than its Buffer, and the
 * Buffer from the text faster still (this runs on every API request).
 */
export function hashApiKeyText(key: string): string {
  return hash('sha256', key, 'base64url');
}

/** Last four characters, shown in key lists so a person can tell keys apart. */
export function apiKeyHint(key: string): string {
  return key.slice(-4);
}

/** Random characters shown after the fixed prefix in key lists ("odk_live_AbCd"). */
export const API_KEY_VISIBLE_RANDOM = 4;

/** The visible start of a key: the fixed prefix and the first few random characters. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + API_KEY_VISIBLE_RANDOM);
}
