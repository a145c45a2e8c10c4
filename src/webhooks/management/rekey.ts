import type { Sql } from '../../db/connect.js';
import { masterKeyId, openSecret, sealSecret, SecretUnavailableError } from '../../sealing/secrets.js';
import type { MasterKeys } from '../../sealing/master-keys.js';
import { countSecretsToRekey, lockSecretsToRekey, storeResealed } from '../sql/rekeyBatch.js';

export const REKEY_BATCH_SIZE = 200;
const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

export interface RekeyProgress {
  /** Endpoints looked at so far, of `total` that were not under the current key at the start. */
  done: number;
  total: number;
  resealed: number;
}

export interface RekeyResult {
  key_id: string;
  resealed: number;
  /** Endpoints whose secret opens with none of the configured keys: left as they were. */
  unopenable: string[];
}

/**
 * `offerdesk secrets rekey`: re-seals every endpoint secret that is not yet under the current
 * master key (sealed under a previous key), in batches that each commit, so an interrupted run loses nothing and the next run
 * goes on with what is left. Secrets stay the same; subscribers notice nothing.
 */
export async function rekeySecrets(
  sql: Sql,
  keys: MasterKeys,
  options: { batchSize?: number; progress?: (progress: RekeyProgress) => void } = {},
): Promise<RekeyResult> {
  const keyId = masterKeyId(keys.current);
  const currentPrefix = Buffer.concat([Buffer.from([2]), Buffer.from(keyId, 'hex')]);
  const batchSize = options.batchSize ?? REKEY_BATCH_SIZE;
  const total = await countSecretsToRekey(sql, { currentPrefix });
  const result: RekeyResult = { key_id: keyId, resealed: 0, unopenable: [] };
  let afterId = FIRST_UUID;
  let done = 0;
  for (;;) {
    const rows = (await sql.begin(async (tx) => {
      const batch = await lockSecretsToRekey(tx, { currentPrefix, afterId, limit: batchSize });
      for (const row of batch) {
        let secret: string;
        try {
          secret = openSecret(keys, row.id, row.secret_sealed);
        } catch (thrown) {
          if (!(thrown instanceof SecretUnavailableError)) throw thrown;
          result.unopenable.push(row.id);
          continue;
        }
        await storeResealed(tx, { id: row.id, secretSealed: sealSecret(keys.current, row.id, secret) });
        result.resealed++;
      }
      return batch;
    })) as Array<{ id: string }>;
    if (rows.length === 0) break;
    afterId = rows[rows.length - 1]!.id;
    done += rows.length;
    options.progress?.({ done, total: Math.max(total, done), resealed: result.resealed });
    if (rows.length < batchSize) break;
  }
  return result;
}
