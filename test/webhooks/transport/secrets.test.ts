import { randomBytes } from 'node:crypto';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../../src/config.js';
import type { Logger } from '../../../src/log.js';
import {
  decryptSecret,
  encryptSecret,
  generateEndpointSecret,
  loadMasterKey,
} from '../../../src/webhooks/transport/secrets.js';

function configWith(env: Record<string, string>): Config {
  return loadConfig({ OFFERDESK_DATA_DIR: mkdtempSync(join(tmpdir(), 'offerdesk-key-')), ...env });
}

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_fields: unknown, message: string) => warnings.push(message) } as unknown as Logger;
  return { logger, warnings };
}

describe('endpoint secrets', () => {
  it('are whsec_ followed by 44 base64 characters that decode to 32 bytes', () => {
    const secret = generateEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });

  it('are different every time', () => {
    expect(generateEndpointSecret()).not.toBe(generateEndpointSecret());
  });
});

describe('sealing secrets with the master key', () => {
  const key = randomBytes(32);
  const secret = generateEndpointSecret();

  it('decrypts what it encrypted', () => {
    expect(decryptSecret(key, encryptSecret(key, secret))).toBe(secret);
  });

  it('never stores the secret in clear', () => {
    expect(encryptSecret(key, secret).includes(Buffer.from(secret))).toBe(false);
  });

  it('gives different bytes for the same secret each time (random nonce)', () => {
    expect(encryptSecret(key, secret).equals(encryptSecret(key, secret))).toBe(false);
  });

  it('starts the sealed bytes with format version 1', () => {
    expect(encryptSecret(key, secret)[0]).toBe(1);
  });

  it('fails to decrypt with another master key', () => {
    expect(() => decryptSecret(randomBytes(32), encryptSecret(key, secret))).toThrow(/wrong master key/);
  });

  it('fails to decrypt bytes that were changed', () => {
    const sealed = encryptSecret(key, secret);
    sealed[sealed.length - 1]! ^= 0x01;
    expect(() => decryptSecret(key, sealed)).toThrow(/wrong master key or damaged/);
  });

  it('refuses an unknown format version', () => {
    const sealed = encryptSecret(key, secret);
    sealed[0] = 2;
    expect(() => decryptSecret(key, sealed)).toThrow(/unknown format/);
  });
});

describe('loadMasterKey', () => {
  it('uses the configured key as given', () => {
    const configured = randomBytes(32);
    const config = configWith({ OFFERDESK_MASTER_KEY: configured.toString('base64') });
    expect(loadMasterKey(config).equals(configured)).toBe(true);
  });

  it('creates a key file with mode 0600 when no key is configured', () => {
    const config = configWith({});
    const { logger } = recordingLogger();
    expect(loadMasterKey(config, logger)).toHaveLength(32);
    expect(statSync(join(config.dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  });

  it('reads the same generated key on every later load', () => {
    const config = configWith({});
    const { logger } = recordingLogger();
    expect(loadMasterKey(config, logger).equals(loadMasterKey(config, logger))).toBe(true);
  });

  it('warns loudly that a generated key is in use', () => {
    const { logger, warnings } = recordingLogger();
    loadMasterKey(configWith({}), logger);
    expect(warnings.join('\n')).toMatch(/generated master key.*OFFERDESK_MASTER_KEY/);
  });

  it('refuses a key file of the wrong length with a message that says what to fix', () => {
    const config = configWith({});
    writeFileSync(join(config.dataDir, 'master.key'), 'c2hvcnQ=\n', { mode: 0o600 });
    expect(() => loadMasterKey(config, recordingLogger().logger)).toThrow(/exactly 32 bytes.*OFFERDESK_MASTER_KEY/);
  });
});
