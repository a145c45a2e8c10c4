import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { SECRET_PREFIX } from './signing.js';

/** Issue 3 "Secrets": `whsec_` + base64 of 32 random bytes. */
export const SECRET_KEY_BYTES = 32;
export const MASTER_KEY_BYTES = 32;
export const MASTER_KEY_FILE = 'master.key';

/**
 * Sealed secret layout, version 1: [0x01][12-byte nonce][16-byte GCM tag][ciphertext].
 * The version byte is also the additional authenticated data, so it cannot be swapped.
 */
const FORMAT_V1 = 0x01;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + NONCE_BYTES + TAG_BYTES;

export function generateEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_KEY_BYTES).toString('base64');
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
      throw new Error('OFFERDESK_MASTER_KEY must be the base64 encoding of exactly 32 bytes');
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

/** AES-256-GCM with a fresh random nonce per call; see FORMAT_V1 for the layout. */
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
