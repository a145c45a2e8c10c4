import type { Sql } from '../db/connect.js';
import { ConfigError } from '../config.js';
import type { Logger } from '../log.js';
import type { MasterKeys } from './master-keys.js';
import { masterKeyId, openSecret, sealedKeyId } from './secrets.js';
import { readSealedSamples } from './sql/readSealedSamples.js';

export interface KeyCheck {
  /** Endpoints whose secret is sealed under the current key. */
  current: number;
  /** Endpoints still sealed under a previous key: to rekey. */
  toRekey: number;
}

/**
 * The start check of `serve` and `worker`: every key the stored endpoint secrets are sealed with
 * must be configured, and one secret of each key must open. A wrong OFFERDESK_MASTER_KEY (a typo,
 * a lost data/master.key, a process started without it) would otherwise start normally and fail
 * every delivery; this refuses the start with one line instead.
 */
export async function checkMasterKeys(sql: Sql, keys: MasterKeys, logger?: Logger): Promise<KeyCheck> {
  const currentId = masterKeyId(keys.current);
  const result: KeyCheck = { current: 0, toRekey: 0 };
  for (const family of await readSealedSamples(sql)) {
    try {
      openSecret(keys, family.sample_id, family.sample_sealed);
    } catch {
      const keyId = sealedKeyId(family.sample_sealed);
      const under = keyId ? `under master key id ${keyId}` : 'in an unknown format';
      throw new ConfigError(
        `the master key cannot open the stored webhook secrets: ${family.endpoints} endpoint(s) are sealed ${under}, ` +
          `and the current key (${keys.source ?? 'OFFERDESK_MASTER_KEY'}) is key id ${currentId}; start with the key they were sealed with ` +
          '(after a rotation, list the old key in OFFERDESK_MASTER_KEYS_PREVIOUS)',
      );
    }
    if (sealedKeyId(family.sample_sealed) === currentId) result.current += family.endpoints;
    else result.toRekey += family.endpoints;
  }
  if (result.toRekey > 0) {
    logger?.warn(
      { keyId: currentId, endpoints: result.toRekey },
      'webhook secrets are sealed under a previous master key; run "offerdesk secrets rekey" to re-seal them under the current one',
    );
  }
  return result;
}
