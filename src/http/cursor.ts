import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/connect.js';
import { isUuid } from '../domain/validate.js';

/**
 * The one keyset-cursor module of the API and the console (openapi.yaml "Pagination": "A cursor
 * is used only with the list it came from and must not be built or edited"; console-api.yaml
 * "Lists"). A cursor is base64url(JSON) + "." + a truncated HMAC-SHA256 over it, with a key the
 * service keeps in its database, so every process on one database accepts the others' cursors.
 *
 * Every cursor carries the workspace it was read for, its walk (which list, with the filter or
 * the parent that fixes it) and the position of the last row shown. A list says only what its
 * cursor carries, as a CursorShape; the seal, the list binding (the walk must be the one asked
 * for) and the workspace check are here.
 */
const MAC_BYTES = 16;

/** The service_secrets rows of the two keys: the API's and the console's cursors are not interchangeable. */
export const API_CURSOR_KEY = 'cursor_hmac_key';
export const CONSOLE_CURSOR_KEY = 'console_cursor_hmac_key';

/** Compared with `===`: the status filter, the offer of a timeline, a console list's name. */
export type Walk = string | number | null;

export interface Cursor<W extends Walk, P> {
  workspaceId: string;
  walk: W;
  position: P;
}

/** What one list's cursor carries: how it is written into the seal and read back (null: not this list's). */
export interface CursorShape<W extends Walk, P> {
  write(cursor: Cursor<W, P>): unknown;
  read(value: unknown): Cursor<W, P> | null;
}

/** The position time is compared in SQL; 64 characters is more than any timestamp the service writes. */
export function isPositionTime(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 64;
}

export function isUuidText(value: unknown): value is string {
  return typeof value === 'string' && isUuid(value);
}

export class Cursors {
  constructor(private readonly key: Buffer) {}

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, MAC_BYTES);
  }

  seal<W extends Walk, P>(shape: CursorShape<W, P>, cursor: Cursor<W, P>): string {
    const body = Buffer.from(JSON.stringify(shape.write(cursor))).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /**
   * The cursor, or null for anything that is not an unmodified cursor of this list and walk. Its
   * workspace is checked by `inWorkspace` once the caller knows the workspace (the API knows it
   * only after the read, openapi.yaml "Order of checks").
   */
  open<W extends Walk, P>(shape: CursorShape<W, P>, token: string, walk: W): Cursor<W, P> | null {
    const cursor = shape.read(this.unseal(token));
    return cursor !== null && cursor.walk === walk ? cursor : null;
  }

  /** `open` and `inWorkspace` at once, for a list whose workspace is known before it is read. */
  positionIn<W extends Walk, P>(shape: CursorShape<W, P>, token: string, walk: W, workspaceId: string): P | null {
    const cursor = this.open(shape, token, walk);
    return cursor !== null && inWorkspace(cursor, workspaceId) ? cursor.position : null;
  }

  /** The JSON value sealed, or undefined for anything that is not an unmodified token of ours. */
  private unseal(token: string): unknown {
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

/** openapi.yaml "Pagination": one workspace's list is not another's; no cursor fits any. */
export function inWorkspace(cursor: { workspaceId: string } | null, workspaceId: string): boolean {
  return cursor === null || cursor.workspaceId === workspaceId;
}

/** The cursors sealed with the key named `secretName`: made once per database, read at start by every process. */
export async function loadCursors(sql: Queryable, secretName: typeof API_CURSOR_KEY | typeof CONSOLE_CURSOR_KEY): Promise<Cursors> {
  await sql`
    insert into service_secrets (name, value) values (${secretName}, ${randomBytes(32)})
    on conflict (name) do nothing`;
  const [row] = await sql<{ value: Buffer }[]>`select value from service_secrets where name = ${secretName}`;
  return new Cursors(row!.value);
}
