import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import type { Logger } from '../log.js';

/** The master key: AES-256, so 32 bytes, from OFFERDESK_MASTER_KEY or a generated key file. */
export const MASTER_KEY_BYTES = 32;
export const MASTER_KEY_FILE = 'master.key';

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

export function assertMasterKey(masterKey: Buffer): void {
  if (masterKey.length !== MASTER_KEY_BYTES) throw new Error(`master key must be ${MASTER_KEY_BYTES} bytes`);
}
