import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { assertMasterKey, type MasterKeys } from './master-keys.js';

/**
 * Endpoint secrets and their sealing at rest under the master key (console-api.yaml
 * "Webhook endpoints": the secret has the shape `whsec_<base64>`; docs/reliability.md for the keys).
 */

/** openapi.yaml "Webhook signature": the secret's prefix, removed before base64-decoding the key. */
export const SECRET_PREFIX = 'whsec_';
/** Random bytes of a new endpoint secret. */
export const SECRET_KEY_BYTES = 32;

/**
 * Sealed secret layout, format 2 (the only one; no release stored another):
 * [0x02][4-byte key id][12-byte nonce][16-byte GCM tag][ciphertext]. The additional data is the
 * format byte, the key id and the endpoint id (16 bytes), so a sealed value copied onto another
 * endpoint's row does not open, and the key id says which key to open it with.
 */
const FORMAT_V2 = 0x02;
const KEY_ID_BYTES = 4;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const V2_PREFIX_BYTES = 1 + KEY_ID_BYTES;
const V2_HEADER_BYTES = V2_PREFIX_BYTES + NONCE_BYTES + TAG_BYTES;

export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_KEY_BYTES).toString('base64');
}

/**
 * A short public name of a key (hex), derived from it with HMAC so it says nothing about the key:
 * stored in every sealed value and shown in messages ("sealed under key id 1a2b3c4d").
 */
export function masterKeyId(masterKey: Buffer): string {
  assertMasterKey(masterKey);
  return createHmac('sha256', masterKey).update('offerdesk master key id').digest().subarray(0, KEY_ID_BYTES).toString('hex');
}

/** Why a sealed secret did not open; never carries key material or the secret. */
export class SecretUnavailableError extends Error {
  override name = 'SecretUnavailableError';
}

/** Version 2 (see FORMAT_V2): AES-256-GCM, fresh random nonce, bound to the endpoint id. */
export function sealSecret(masterKey: Buffer, endpointId: string, secret: string): Buffer {
  const prefix = Buffer.concat([Buffer.from([FORMAT_V2]), Buffer.from(masterKeyId(masterKey), 'hex')]);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.concat([prefix, endpointIdBytes(endpointId)]));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([prefix, nonce, cipher.getAuthTag(), ciphertext]);
}

/** The key id a sealed value names, or null when it is not a sealed value of ours. */
export function sealedKeyId(sealed: Buffer): string | null {
  if (sealed.length >= V2_HEADER_BYTES && sealed[0] === FORMAT_V2) return sealed.subarray(1, V2_PREFIX_BYTES).toString('hex');
  return null;
}

/** Opens a sealed secret of `endpointId` with the one of `keys` it names (its key id). */
export function openSecret(keys: MasterKeys, endpointId: string, sealed: Buffer): string {
  const all = [keys.current, ...keys.previous];
  const keyId = sealedKeyId(sealed);
  if (keyId === null) throw new SecretUnavailableError('sealed webhook secret has an unknown format');
  const key = all.find((candidate) => masterKeyId(candidate) === keyId);
  if (!key) throw new SecretUnavailableError(`sealed webhook secret is under master key id ${keyId}, which is not configured`);
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(V2_PREFIX_BYTES, V2_PREFIX_BYTES + NONCE_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.concat([sealed.subarray(0, V2_PREFIX_BYTES), endpointIdBytes(endpointId)]));
  decipher.setAuthTag(sealed.subarray(V2_PREFIX_BYTES + NONCE_BYTES, V2_HEADER_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(V2_HEADER_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnavailableError(
      `sealed webhook secret does not open under master key id ${keyId}: damaged, or copied from another endpoint`,
    );
  }
}

function endpointIdBytes(endpointId: string): Buffer {
  const hex = endpointId.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new SecretUnavailableError('endpoint id must be a UUID');
  return Buffer.from(hex, 'hex');
}
