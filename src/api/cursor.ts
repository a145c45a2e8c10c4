import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/connect.js';
import { OFFER_STATUSES, type OfferStatus } from '../domain/offer-state.js';
import { isUuid } from '../domain/validate.js';

/**
 * Opaque, tamper-evident cursors (SPEC.md "Pagination rules" 2: "A cursor is used only with the
 * list it came from and must not be built or edited"). A cursor is base64url(JSON) + "." +
 * a truncated HMAC-SHA256 over it with a key the service keeps in its database, so every API
 * process on one database accepts the others' cursors. The payload names its list: the workspace
 * it was read for, and the offers list with its status filter or the timeline of one offer; a
 * cursor presented to another list, or with another workspace's key, is refused like a damaged
 * one. (Cursors made before the workspace was part of them do not decode: the walk starts over.)
 */
export type CursorPayload =
  | { list: 'offers'; workspaceId: string; status: OfferStatus | null; createdAt: string; id: string }
  | { list: 'events'; workspaceId: string; offerId: string; sequence: number };

const MAC_BYTES = 16;
const SECRET_NAME = 'cursor_hmac_key';

export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, MAC_BYTES);
  }

  encode(payload: CursorPayload): string {
    const compact =
      payload.list === 'offers'
        ? { l: 'o', w: payload.workspaceId, s: payload.status, c: payload.createdAt, i: payload.id }
        : { l: 'e', w: payload.workspaceId, o: payload.offerId, q: payload.sequence };
    const body = Buffer.from(JSON.stringify(compact)).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The payload, or null for anything that is not an unmodified cursor of ours. */
  decode(token: string): CursorPayload | null {
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const body = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    if (mac.length !== MAC_BYTES || token.slice(dot + 1) !== mac.toString('base64url')) return null;
    if (!timingSafeEqual(mac, this.mac(body))) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    return fromCompact(parsed);
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
  await sql`
    insert into service_secrets (name, value) values (${SECRET_NAME}, ${randomBytes(32)})
    on conflict (name) do nothing`;
  const [row] = await sql<{ value: Buffer }[]>`select value from service_secrets where name = ${SECRET_NAME}`;
  return new CursorCodec(row!.value);
}
