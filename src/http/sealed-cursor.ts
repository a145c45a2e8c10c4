import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/connect.js';

/**
 * The one keyset-cursor codec of the API and the console (openapi.yaml "Pagination": "A cursor
 * is used only with the list it came from and must not be built or edited"): base64url(JSON) + "."
 * + a truncated HMAC-SHA256 over it, with a key the service keeps in its database, so every
 * process on one database accepts the others' cursors. What the JSON holds, and which list it
 * names, is the caller's: api/cursor.ts and console/cursor.ts.
 */
const MAC_BYTES = 16;

export class SealedCursor {
  constructor(private readonly key: Buffer) {}

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, MAC_BYTES);
  }

  seal(value: unknown): string {
    const body = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The JSON value sealed, or undefined for anything that is not an unmodified token of ours. */
  open(token: string): unknown {
    const dot = token.indexOf('.');
    if (dot <= 0) return undefined;
    const body = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    if (mac.length !== MAC_BYTES || token.slice(dot + 1) !== mac.toString('base64url')) return undefined;
    if (!timingSafeEqual(mac, this.mac(body))) return undefined;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  }
}

/** The key named `secretName`: made once per database, read at start by every process. */
export async function loadCursorKey(sql: Queryable, secretName: string): Promise<Buffer> {
  await sql`
    insert into service_secrets (name, value) values (${secretName}, ${randomBytes(32)})
    on conflict (name) do nothing`;
  const [row] = await sql<{ value: Buffer }[]>`select value from service_secrets where name = ${secretName}`;
  return row!.value;
}
