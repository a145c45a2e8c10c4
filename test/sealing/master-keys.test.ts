import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { generateEndpointSecret, masterKeyId, openSecret, sealedKeyId, sealSecret, SecretUnavailableError } from '../../src/sealing/secrets.js';
import { loadMasterKeys } from '../../src/sealing/master-keys.js';

/** Format 2 of a sealed secret: key id, endpoint binding, rotation with previous keys. */

const current = randomBytes(32);
const previous = randomBytes(32);
const secret = generateEndpointSecret();
const endpointId = randomUUID();

describe('sealing format 2', () => {
  it('opens with the key it names, for the endpoint it was sealed for', () => {
    const sealed = sealSecret(current, endpointId, secret);
    expect(sealed[0]).toBe(2);
    expect(sealedKeyId(sealed)).toBe(masterKeyId(current));
    expect(openSecret({ current, previous: [] }, endpointId, sealed)).toBe(secret);
  });

  it('does not open when copied onto another endpoint (the endpoint id is GCM additional data)', () => {
    const sealed = sealSecret(current, endpointId, secret);
    expect(() => openSecret({ current, previous: [] }, randomUUID(), sealed)).toThrow(SecretUnavailableError);
    expect(() => openSecret({ current, previous: [] }, randomUUID(), sealed)).toThrow(/copied from another endpoint/);
  });

  it('does not open when the key id byte is changed to another key', () => {
    const sealed = sealSecret(previous, endpointId, secret);
    Buffer.from(masterKeyId(current), 'hex').copy(sealed, 1);
    expect(() => openSecret({ current, previous: [previous] }, endpointId, sealed)).toThrow(SecretUnavailableError);
  });

  it('opens a value sealed under a previous key while that key is configured, and names the key when it is not', () => {
    const sealed = sealSecret(previous, endpointId, secret);
    expect(openSecret({ current, previous: [previous] }, endpointId, sealed)).toBe(secret);
    expect(() => openSecret({ current, previous: [] }, endpointId, sealed)).toThrow(
      new RegExp(`key id ${masterKeyId(previous)}, which is not configured`),
    );
  });

  it('opens with the current or a previous key, and with no key that is not configured', () => {
    expect(openSecret({ current, previous: [] }, endpointId, sealSecret(current, endpointId, secret))).toBe(secret);
    expect(openSecret({ current, previous: [previous] }, endpointId, sealSecret(previous, endpointId, secret))).toBe(secret);
    expect(() => openSecret({ current, previous: [] }, endpointId, sealSecret(previous, endpointId, secret))).toThrow(SecretUnavailableError);
  });

  it('refuses a value that is not in format 2 under every configured key', () => {
    const sealed = sealSecret(current, endpointId, secret);
    sealed[0] = 1;
    expect(() => openSecret({ current, previous: [previous] }, endpointId, sealed)).toThrow(/unknown format/);
  });

  it('key ids are stable, 8 hex digits, and differ between keys', () => {
    expect(masterKeyId(current)).toMatch(/^[0-9a-f]{8}$/);
    expect(masterKeyId(Buffer.from(current))).toBe(masterKeyId(current));
    expect(masterKeyId(previous)).not.toBe(masterKeyId(current));
  });
});

describe('loading the master keys', () => {
  const dataDir = () => mkdtempSync(join(tmpdir(), 'offerdesk-keys-'));

  it('with DATABASE_URL and no OFFERDESK_MASTER_KEY refuses in one line instead of generating a key', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db.invalid/offerdesk', OFFERDESK_DATA_DIR: dataDir() });
    expect(() => loadMasterKeys(config)).toThrow(ConfigError);
    expect(() => loadMasterKeys(config)).toThrow(/^OFFERDESK_MASTER_KEY is not set: with DATABASE_URL no key is generated; [^\n]+$/);
  });

  it('reads the previous keys of a rotation', () => {
    const config = loadConfig({
      OFFERDESK_MASTER_KEY: current.toString('base64'),
      OFFERDESK_MASTER_KEYS_PREVIOUS: ` ${previous.toString('base64')} , ${randomBytes(32).toString('base64')}`,
    });
    const keys = loadMasterKeys(config);
    expect(keys.current.equals(current)).toBe(true);
    expect(keys.previous).toHaveLength(2);
    expect(keys.previous[0]!.equals(previous)).toBe(true);
  });

  it('refuses a malformed previous key, and previous keys without a current one', () => {
    expect(() => loadConfig({ OFFERDESK_MASTER_KEY: current.toString('base64'), OFFERDESK_MASTER_KEYS_PREVIOUS: 'abc' })).toThrow(
      /OFFERDESK_MASTER_KEYS_PREVIOUS entry 1 must be the base64 encoding of exactly 32 bytes/,
    );
    expect(() => loadConfig({ OFFERDESK_MASTER_KEYS_PREVIOUS: previous.toString('base64') })).toThrow(/OFFERDESK_MASTER_KEY is not/);
  });

  it('on the embedded default still generates data/master.key', () => {
    const dir = dataDir();
    const keys = loadMasterKeys(loadConfig({ OFFERDESK_DATA_DIR: dir }), { warn: () => {} } as never);
    expect(keys.current).toHaveLength(32);
    expect(keys.previous).toEqual([]);
    // Named in the start check's refusal, so a lost key file is recognisable as the cause.
    expect(keys.source).toBe(join(dir, 'master.key'));
  });
});
