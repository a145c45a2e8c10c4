import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { SECRET_PREFIX } from './signing.js';

/** Issue 3 "Secrets": `whsec_` + base64 of 32 random bytes. */
export const SECRET_KEY_BYTES = 32;
export const MASTER_KEY_BYTES = 32;
export const MASTER_KEY_FILE = 'master.key';

/**
 * Sealed secret layout, version 1 (still opened, no longer written):
 * [0x01][12-byte nonce][16-byte GCM tag][ciphertext]; the version byte is the additional data.
 */
const FORMAT_V1 = 0x01;
/**
 * Version 2: [0x02][4-byte key id][12-byte nonce][16-byte GCM tag][ciphertext]. The additional
 * data is the version byte, the key id and the endpoint id (16 bytes), so a sealed value copied
 * onto another endpoint's row does not open, and the key id says which key to open it with.
 */
const FORMAT_V2 = 0x02;
const KEY_ID_BYTES = 4;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + NONCE_BYTES + TAG_BYTES;
const V2_PREFIX_BYTES = 1 + KEY_ID_BYTES;
const V2_HEADER_BYTES = V2_PREFIX_BYTES + NONCE_BYTES + TAG_BYTES;

export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_KEY_BYTES).toString('base64');
}

/** The key that seals, and every key that may open (the current one first). */
export interface MasterKeys {
  current: Buffer;
  previous: Buffer[];
  /** Where the current key came from, for messages: OFFERDESK_MASTER_KEY or the key file's path. */
  source?: string;
}

/**
 * The current master key and the previous ones of a rotation (config.webhooks). Without a
 * configured key: with DATABASE_URL the start is refused (a key generated beside one process's
 * data would silently differ from the other processes' key); on the embedded database the
 * generated `<dataDir>/master.key` is used, as `loadMasterKey` says.
 */
export function loadMasterKeys(config: Config, logger?: Logger): MasterKeys {
  if (!config.webhooks.masterKey && config.databaseUrl) {
    throw new ConfigError(
      'OFFERDESK_MASTER_KEY is not set: with DATABASE_URL no key is generated; set it to the key the webhook secrets were sealed with (a new one: openssl rand -base64 32)',
    );
  }
  const previous = config.webhooks.previousMasterKeys.map((key) => Buffer.from(key, 'base64'));
  const source = config.webhooks.masterKey ? 'OFFERDESK_MASTER_KEY' : join(config.dataDir, MASTER_KEY_FILE);
  return { current: loadMasterKey(config, logger), previous, source };
}

/**
 * The key that encrypts endpoint secrets at rest: `OFFERDESK_MASTER_KEY` when configured, otherwise
 * `<dataDir>/master.key`, created once with mode 0600. The generated key is fine for development
 * but lives next to the data it protects, so serve and worker announce it as a warning.
 */
export function loadMasterKey(config: Config, logger?: Logger): Buffer {
  if (config.webhooks.masterKey) {
    const key = Buffer.from(config.webhooks.masterKey, 'base64');
    if (key.length !== MASTER_KEY_BYTES) {
      throw new ConfigError('OFFERDESK_MASTER_KEY must be the base64 encoding of exactly 32 bytes');
    }
    return key;
  }
  const path = join(config.dataDir, MASTER_KEY_FILE);
  const created = createKeyFileOnce(path);
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== MASTER_KEY_BYTES) {
    throw new Error(`${path} must hold the base64 encoding of exactly 32 bytes; restore it or set OFFERDESK_MASTER_KEY`);
  }
  // Mentioned once, by the long-running processes (serve, worker), which pass their logger; the
  // CLI's short commands stay quiet about it (the README says to set OFFERDESK_MASTER_KEY).
  logger?.warn(
    { path, created },
    `webhook secrets are encrypted with a generated master key in ${path}` +
      `${created ? ' (created now)' : ''}; set OFFERDESK_MASTER_KEY in production and keep a copy of it`,
  );
  if ((statSync(path).mode & 0o077) !== 0) {
    const loose = `${path} is readable by other users; run: chmod 600 ${path}`;
    if (logger) logger.warn({ path }, loose);
    else process.emitWarning(loose, { code: 'OFFERDESK_MASTER_KEY_MODE' });
  }
  return key;
}

/**
 * Written to a private temporary file and hard-linked into place: `link` fails if the name exists,
 * so when two processes start at once exactly one key wins and nobody reads a half-written file.
 */
function createKeyFileOnce(path: string): boolean {
  mkdirSync(join(path, '..'), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(MASTER_KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
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

/** The key id a sealed value names, or null for version 1 (which names none). */
export function sealedKeyId(sealed: Buffer): string | null {
  if (sealed.length >= V2_HEADER_BYTES && sealed[0] === FORMAT_V2) return sealed.subarray(1, V2_PREFIX_BYTES).toString('hex');
  return null;
}

/**
 * Opens a sealed secret of `endpointId` with whichever of `keys` it was sealed with: version 2
 * names its key; version 1 (written before key ids) is tried with each key in turn.
 */
export function openSecret(keys: MasterKeys, endpointId: string, sealed: Buffer): string {
  const all = [keys.current, ...keys.previous];
  if (sealed.length >= 1 && sealed[0] === FORMAT_V1) {
    for (const key of all) {
      try {
        return decryptSecret(key, sealed);
      } catch {
        // the next key
      }
    }
    throw new SecretUnavailableError('sealed webhook secret (format 1) opens with none of the configured master keys');
  }
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

/** Version 1 (see FORMAT_V1), kept so tests can make values as older releases stored them. */
export function encryptSecret(masterKey: Buffer, secret: string): Buffer {
  assertMasterKey(masterKey);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, nonce, { authTagLength: TAG_BYTES });
  const version = Buffer.from([FORMAT_V1]);
  cipher.setAAD(version);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([version, nonce, cipher.getAuthTag(), ciphertext]);
}

/** Throws when the key is wrong or the sealed bytes were changed: GCM authenticates both. */
export function decryptSecret(masterKey: Buffer, sealed: Buffer): string {
  assertMasterKey(masterKey);
  if (sealed.length < HEADER_BYTES || sealed[0] !== FORMAT_V1) {
    throw new Error('sealed webhook secret has an unknown format');
  }
  const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
  const tag = sealed.subarray(1 + NONCE_BYTES, HEADER_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', masterKey, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(sealed.subarray(0, 1));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new Error('cannot decrypt webhook secret: wrong master key or damaged data', { cause });
  }
}

function assertMasterKey(masterKey: Buffer): void {
  if (masterKey.length !== MASTER_KEY_BYTES) throw new Error(`master key must be ${MASTER_KEY_BYTES} bytes`);
}
