import { isPositionTime, isUuidText, type CursorShape } from '../../http/cursor.js';
import type { ConsoleRequest } from '../context.js';
import { refuse } from '../errors.js';

/** console-api.yaml "Lists": `limit` 1..100 (default 50), `cursor` opaque; keyset pages. */
export const DEFAULT_PAGE_SIZE = 50;

export interface PageRequest {
  limit: number;
  after: { createdAt: string; id: string } | null;
}

/**
 * A console list's cursor carries the list's name (with a digest of its filters where it has
 * some: one walk) and the last row's exact created_at (text) and id. Sealed as
 * `[list, workspace, created_at, id]`.
 */
export const listCursor: CursorShape<string, { createdAt: string; id: string }> = {
  write: ({ walk, workspaceId, position }) => [walk, workspaceId, position.createdAt, position.id],
  read(value) {
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [l, w, c, i] = value as unknown[];
    if (typeof l !== 'string' || !isUuidText(w) || !isPositionTime(c) || !isUuidText(i)) return null;
    return { walk: l, workspaceId: w, position: { createdAt: c, id: i } };
  },
};

/** The page asked for; a cursor that is not an unmodified one of this list is 400 `cursor`. */
export function pageRequest(request: ConsoleRequest, list: string, workspaceId: string): PageRequest {
  const query = request.c.request.query as Record<string, unknown>;
  const limit = typeof query.limit === 'number' ? query.limit : DEFAULT_PAGE_SIZE;
  const cursor = typeof query.cursor === 'string' ? query.cursor : undefined;
  if (cursor === undefined) return { limit, after: null };
  const after = request.deps.cursors.positionIn(listCursor, cursor, list, workspaceId);
  if (!after) throw refuse.invalid('The cursor is not one this list gave out. Start again from the first page.', 'cursor');
  return { limit, after };
}

/**
 * Answers `{ data, next_cursor }` from `limit + 1` rows read: the extra row only says that
 * another page exists; the cursor points at the last row shown.
 */
export function pageOf<Row extends { id: string }, Out>(
  request: ConsoleRequest,
  input: { list: string; workspaceId: string; limit: number; rows: Row[]; key: (row: Row) => string; view: (row: Row) => Out },
): { data: Out[]; next_cursor: string | null } {
  const shown = input.rows.slice(0, input.limit);
  const last = shown.at(-1);
  const more = input.rows.length > input.limit && last !== undefined;
  return {
    data: shown.map(input.view),
    next_cursor: more
      ? request.deps.cursors.seal(listCursor, { walk: input.list, workspaceId: input.workspaceId, position: { createdAt: input.key(last), id: last.id } })
      : null,
  };
}

/** A path parameter as validated by the document (format uuid). */
export function pathParam(request: ConsoleRequest, name: string): string {
  return String((request.c.request.params as Record<string, string>)[name]).toLowerCase();
}

export function body<T>(request: ConsoleRequest): T {
  return (request.c.request.requestBody ?? {}) as T;
}
