import type { Queryable } from '../db/connect.js';
import { isUuid } from '../domain/validate.js';
import { loadCursorKey, SealedCursor } from '../http/sealed-cursor.js';

/**
 * Opaque, tamper-evident cursors of the console's lists, sealed by http/sealed-cursor.ts like the
 * API's (with a key of their own). The payload names its list and workspace, so a cursor given to
 * another list is refused like a damaged one. Keyset position: the row's exact created_at (text)
 * and id.
 */
export interface ConsoleCursor {
  list: string;
  workspaceId: string;
  createdAt: string;
  id: string;
}

const SECRET_NAME = 'console_cursor_hmac_key';

export class ConsoleCursorCodec {
  private readonly sealed: SealedCursor;

  constructor(key: Buffer) {
    this.sealed = new SealedCursor(key);
  }

  encode(cursor: ConsoleCursor): string {
    return this.sealed.seal([cursor.list, cursor.workspaceId, cursor.createdAt, cursor.id]);
  }

  /** The position, or null for anything that is not an unmodified cursor of this list. */
  decode(token: string, list: string, workspaceId: string): { createdAt: string; id: string } | null {
    const value = this.sealed.open(token);
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [l, w, c, i] = value as unknown[];
    if (l !== list || w !== workspaceId || typeof c !== 'string' || c.length > 64 || typeof i !== 'string' || !isUuid(i)) {
      return null;
    }
    return { createdAt: c, id: i };
  }
}

export async function loadConsoleCursorCodec(sql: Queryable): Promise<ConsoleCursorCodec> {
  return new ConsoleCursorCodec(await loadCursorKey(sql, SECRET_NAME));
}
