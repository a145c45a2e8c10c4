import type { SuccessBody } from '../../contract.js';
import { listOfferEvents } from '../../read-model/offers.js';
import { reply } from '../errors.js';
import { offerIdOrNull, readHandler, type ReadDeps, type ReadOperation } from '../read-operation.js';
import { sendJson } from '../respond.js';

/** Defaults of SPEC.md "GET /offers/{id}/events". */
export const EVENTS_DEFAULT_LIMIT = 50;

interface EventsQuery {
  limit: number;
  afterSequence: number;
  cursorWorkspace: string | null;
}

const timeline: ReadOperation<EventsQuery> = {
  readQuery(query, path, { cursors }) {
    const limit = (query.limit as number | undefined) ?? EVENTS_DEFAULT_LIMIT;
    if (query.cursor === undefined) return { limit, afterSequence: 0, cursorWorkspace: null };
    const cursor = cursors.decode(String(query.cursor));
    // A cursor belongs to the timeline of one offer (SPEC.md "Pagination rules" 2).
    if (!cursor || cursor.list !== 'events' || cursor.offerId !== path.id?.toLowerCase()) return { invalid: 'cursor' };
    return { limit, afterSequence: cursor.sequence, cursorWorkspace: cursor.workspaceId };
  },
  cursorWorkspace: (query) => query.cursorWorkspace,
  async respond({ workspaceId, query, path }, res, { sql, cursors }) {
    const offerId = offerIdOrNull(path.id);
    const page = offerId && (await listOfferEvents(sql, { workspaceId, offerId, limit: query.limit, afterSequence: query.afterSequence }));
    if (!page || page.events === null) return reply.notFound(res);
    const next =
      page.nextAfterSequence === null
        ? null
        : cursors.encode({ list: 'events', workspaceId, offerId: offerId!, sequence: page.nextAfterSequence });
    sendJson(res, 200, { data: page.events, next_cursor: next } satisfies SuccessBody<'listOfferEvents'>);
  },
};

export function offerEventHandlers(deps: ReadDeps) {
  const handler = readHandler(timeline, deps);
  return { listOfferEvents: handler };
}
