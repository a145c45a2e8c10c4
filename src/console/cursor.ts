import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/connect.js';

/**
 * Opaque, tamper-evident cursors of the console's lists: base64url(JSON) + "." + a truncated
 * HMAC-SHA256 with a key kept in the database (every API process accepts the others' cursors).
 * The payload names its list and workspace, so a cursor given to another list is refused like a
 * damaged one. Keyset position: the row's exact created_at (text) and id.
 */
export interface ConsoleCursor {
  list: string;
  workspaceId: string;
  createdAt: string;
  id: string;
}

const MAC_BYTES = 16;
const SECRET_NAME = 'console_cursor_hmac_key';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class ConsoleCursorCodec {
  constructor(private readonly key: Buffer) {}

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, MAC_BYTES);
  }

  encode(cursor: ConsoleCursor): string {
    const body = Buffer.from(JSON.stringify([cursor.list, cursor.workspaceId, cursor.createdAt, cursor.id])).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The position, or null for anything that is not an unmodified cursor of this list. */
  decode(token: string, list: string, workspaceId: string): { createdAt: string; id: string } | null {
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const body = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    if (mac.length !== MAC_BYTES || token.slice(dot + 1) !== mac.toString('base64url')) return null;
    if (!timingSafeEqual(mac, this.mac(body))) return null;
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [l, w, c, i] = value as unknown[];
    if (l !== list || w !== workspaceId || typeof c !== 'string' || c.length > 64 || typeof i !== 'string' || !UUID.test(i)) {
      return null;
    }
    return { createdAt: c, id: i };
  }
}

export async function loadConsoleCursorCodec(sql: Queryable): Promise<ConsoleCursorCodec> {
  await sql`
    insert into service_secrets (name, value) values (${SECRET_NAME}, ${randomBytes(32)})
    on conflict (name) do nothing`;
  const [row] = await sql<{ value: Buffer }[]>`select value from service_secrets where name = ${SECRET_NAME}`;
  return new ConsoleCursorCodec(row!.value);
}
