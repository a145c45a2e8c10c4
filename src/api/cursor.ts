import type { Queryable } from '../db/connect.js';
import { OFFER_STATUSES, type OfferStatus } from '../domain/offer-state.js';
import { isUuid } from '../domain/validate.js';
import { loadCursorKey, SealedCursor } from '../http/sealed-cursor.js';

/**
 * Opaque, tamper-evident cursors (openapi.yaml "Pagination": "A cursor is used only with the
 * list it came from and must not be built or edited"), sealed by http/sealed-cursor.ts. The
 * payload names its list: the workspace it was read for, and the offers list with its status
 * filter or the timeline of one offer; a cursor presented to another list, or with another
 * workspace's key, is refused like a damaged one.
 */
export type CursorPayload =
  | { list: 'offers'; workspaceId: string; status: OfferStatus | null; createdAt: string; id: string }
  | { list: 'events'; workspaceId: string; offerId: string; sequence: number };

const SECRET_NAME = 'cursor_hmac_key';

export class CursorCodec {
  private readonly sealed: SealedCursor;

  constructor(key: Buffer) {
    this.sealed = new SealedCursor(key);
  }

  encode(payload: CursorPayload): string {
    return this.sealed.seal(
      payload.list === 'offers'
        ? { l: 'o', w: payload.workspaceId, s: payload.status, c: payload.createdAt, i: payload.id }
        : { l: 'e', w: payload.workspaceId, o: payload.offerId, q: payload.sequence },
    );
  }

  /** The payload, or null for anything that is not an unmodified cursor of ours. */
  decode(token: string): CursorPayload | null {
    return fromCompact(this.sealed.open(token));
  }
}

const STATUSES: ReadonlySet<string> = new Set(OFFER_STATUSES);

function fromCompact(value: unknown): CursorPayload | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.w !== 'string' || !isUuid(v.w)) return null;
  const workspaceId = v.w;
  if (v.l === 'o') {
    const statusOk = v.s === null || (typeof v.s === 'string' && STATUSES.has(v.s));
    if (!statusOk || typeof v.c !== 'string' || v.c.length > 64 || typeof v.i !== 'string' || !isUuid(v.i)) return null;
    return { list: 'offers', workspaceId, status: v.s as OfferStatus | null, createdAt: v.c, id: v.i };
  }
  if (v.l === 'e') {
    if (typeof v.o !== 'string' || !isUuid(v.o)) return null;
    if (typeof v.q !== 'number' || !Number.isSafeInteger(v.q) || v.q < 1) return null;
    return { list: 'events', workspaceId, offerId: v.o, sequence: v.q };
  }
  return null;
}

/** The cursor key: made once per database, read at start by every API process. */
export async function loadCursorCodec(sql: Queryable): Promise<CursorCodec> {
  return new CursorCodec(await loadCursorKey(sql, SECRET_NAME));
}
