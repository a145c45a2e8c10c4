import type { SuccessBody } from '../../contract.js';
import { readOfferEventPage, type OfferEventPage } from '../../read-model/offers.js';
import { reply } from '../errors.js';
import { offerIdOrNull, readHandler, type ReadDeps, type ReadOperation } from '../read-operation.js';
import { sendJson } from '../../http/respond.js';

/** Defaults of openapi.yaml "listOfferEvents". */
export const EVENTS_DEFAULT_LIMIT = 50;

interface EventsQuery {
  limit: number;
  afterSequence: number;
  cursorWorkspace: string | null;
}

const timeline: ReadOperation<EventsQuery, OfferEventPage> = {
  readQuery(query, path, { cursors }) {
    const limit = (query.limit as number | undefined) ?? EVENTS_DEFAULT_LIMIT;
    if (query.cursor === undefined) return { limit, afterSequence: 0, cursorWorkspace: null };
    const cursor = cursors.decode(String(query.cursor));
    // A cursor belongs to the timeline of one offer (openapi.yaml "Pagination").
    if (!cursor || cursor.list !== 'events' || cursor.offerId !== path.id?.toLowerCase()) return { invalid: 'cursor' };
    return { limit, afterSequence: cursor.sequence, cursorWorkspace: cursor.workspaceId };
  },
  cursorWorkspace: (query) => query.cursorWorkspace,
  read: ({ scope, now, query, path }, { sql }) =>
    readOfferEventPage(sql, scope, { offerId: offerIdOrNull(path.id), limit: query.limit, afterSequence: query.afterSequence, now }),
  respond({ workspaceId, value: page, query, path }, res, { cursors }) {
    const offerId = offerIdOrNull(path.id);
    if (page.events === null) return reply.notFound(res);
    const next =
      page.nextAfterSequence === null
        ? null
        : cursors.encode({ list: 'events', workspaceId, offerId: offerId!, sequence: page.nextAfterSequence });
    sendJson(res, 200, { data: page.events, next_cursor: next } satisfies SuccessBody<'listOfferEvents'>);
  },
};

/** Handlers by operationId. */
export function offerEventHandlers(deps: ReadDeps) {
  const listOfferEvents = readHandler(timeline, deps);
  return { listOfferEvents };
}
