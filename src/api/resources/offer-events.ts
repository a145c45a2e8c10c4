import type { SuccessBody } from '../../contract.js';
import { isUuidText, type Cursor, type CursorShape } from '../../http/cursor.js';
import { readOfferEventPage, type OfferEventPage } from '../../read-model/offers.js';
import { reply } from '../errors.js';
import { offerIdOrNull, readHandler, type ReadDeps, type ReadOperation } from '../read-operation.js';
import { sendJson } from '../../http/respond.js';

/** Defaults of openapi.yaml "listOfferEvents". */
export const EVENTS_DEFAULT_LIMIT = 50;

/**
 * A timeline's cursor carries its offer (a cursor belongs to the timeline of one offer,
 * openapi.yaml "Pagination") and the sequence of the last event shown (a timeline starts at 1).
 * Sealed as `{ l: 'e', w, o, q }`: integrators' cursors are read across versions, so the form stays.
 */
export const timelineCursor: CursorShape<string, number> = {
  write: ({ workspaceId, walk, position }) => ({ l: 'e', w: workspaceId, o: walk, q: position }),
  read(value) {
    const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    if (v.l !== 'e' || !isUuidText(v.w) || !isUuidText(v.o)) return null;
    if (typeof v.q !== 'number' || !Number.isSafeInteger(v.q) || v.q < 1) return null;
    return { workspaceId: v.w, walk: v.o, position: v.q };
  },
};

interface EventsQuery {
  limit: number;
  cursor: Cursor<string, number> | null;
}

const timeline: ReadOperation<EventsQuery, OfferEventPage> = {
  readQuery(query, path, { cursors }) {
    const limit = (query.limit as number | undefined) ?? EVENTS_DEFAULT_LIMIT;
    if (query.cursor === undefined) return { limit, cursor: null };
    const cursor = cursors.open(timelineCursor, String(query.cursor), path.id?.toLowerCase() ?? '');
    return cursor ? { limit, cursor } : { invalid: 'cursor' };
  },
  cursor: (query) => query.cursor,
  read: ({ scope, now, query, path }, { sql }) =>
    readOfferEventPage(sql, scope, { offerId: offerIdOrNull(path.id), limit: query.limit, afterSequence: query.cursor?.position ?? 0, now }),
  respond({ workspaceId, value: page, query, path }, res, { cursors }) {
    const offerId = offerIdOrNull(path.id);
    if (page.events === null) return reply.notFound(res);
    const next =
      page.nextAfterSequence === null
        ? null
        : cursors.seal(timelineCursor, { workspaceId, walk: offerId!, position: page.nextAfterSequence });
    sendJson(res, 200, { data: page.events, next_cursor: next } satisfies SuccessBody<'listOfferEvents'>);
  },
};

/** Handlers by operationId. */
export function offerEventHandlers(deps: ReadDeps) {
  const listOfferEvents = readHandler(timeline, deps);
  return { listOfferEvents };
}
