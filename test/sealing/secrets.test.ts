import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import type { Logger } from '../../src/log.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { generateEndpointSecret, openSecret, sealSecret, SecretUnavailableError } from '../../src/sealing/secrets.js';
import { loadMasterKey } from '../../src/sealing/master-keys.js';

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
  const keys = { current: key, previous: [] };
  const endpointId = randomUUID();
  const secret = generateEndpointSecret();

  it('opens what it sealed', () => {
    expect(openSecret(keys, endpointId, sealSecret(key, endpointId, secret))).toBe(secret);
  });

  it('never stores the secret in clear', () => {
    expect(sealSecret(key, endpointId, secret).includes(Buffer.from(secret))).toBe(false);
  });

  it('gives different bytes for the same secret each time (random nonce)', () => {
    expect(sealSecret(key, endpointId, secret).equals(sealSecret(key, endpointId, secret))).toBe(false);
  });

  it('starts the sealed bytes with format version 2', () => {
    expect(sealSecret(key, endpointId, secret)[0]).toBe(2);
  });

  it('fails to open with another master key', () => {
    expect(() => openSecret({ current: randomBytes(32), previous: [] }, endpointId, sealSecret(key, endpointId, secret))).toThrow(
      /not configured/,
    );
  });

  it('fails to open bytes that were changed', () => {
    const sealed = sealSecret(key, endpointId, secret);
    sealed[sealed.length - 1]! ^= 0x01;
    expect(() => openSecret(keys, endpointId, sealed)).toThrow(/damaged/);
  });

  it('refuses an unknown format version', () => {
    const sealed = sealSecret(key, endpointId, secret);
    sealed[0] = 1;
    expect(() => openSecret(keys, endpointId, sealed)).toThrow(SecretUnavailableError);
    expect(() => openSecret(keys, endpointId, sealed)).toThrow(/unknown format/);
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
