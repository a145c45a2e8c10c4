import { createHash } from 'node:crypto';

/**
 * The 64-bit key of a named PostgreSQL advisory lock, as the text `::bigint` takes: derived from
 * the name, so every lock of the service has its own key and every process agrees on it.
 */
export function advisoryLockKey(name: string): string {
  return createHash('sha256').update(`offerdesk:${name}`).digest().readBigInt64BE(0).toString();
}
