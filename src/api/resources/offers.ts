import type { SuccessBody } from '../../contract.js';
import { listOffers, readOffer, type OfferPosition } from '../../read-model/offers.js';
import type { OfferStatus } from '../../contract.js';
import { reply } from '../errors.js';
import { offerIdOrNull, readHandler, type ReadDeps, type ReadOperation } from '../read-operation.js';
import { sendJson } from '../respond.js';

/** Defaults of SPEC.md "GET /offers". */
export const OFFERS_DEFAULT_LIMIT = 25;

interface OffersQuery {
  status: OfferStatus | null;
  limit: number;
  after: OfferPosition | null;
  cursorWorkspace: string | null;
}

const offersList: ReadOperation<OffersQuery> = {
  readQuery(query, _path, { cursors }) {
    const status = (query.status as OfferStatus | undefined) ?? null;
    const limit = (query.limit as number | undefined) ?? OFFERS_DEFAULT_LIMIT;
    if (query.cursor === undefined) return { status, limit, after: null, cursorWorkspace: null };
    const cursor = cursors.decode(String(query.cursor));
    // SPEC.md "Pagination rules" 4: "The same `status` must be sent on every page of one walk."
    if (!cursor || cursor.list !== 'offers' || cursor.status !== status) return { invalid: 'cursor' };
    return { status, limit, after: { createdAt: cursor.createdAt, id: cursor.id }, cursorWorkspace: cursor.workspaceId };
  },
  cursorWorkspace: (query) => query.cursorWorkspace,
  async respond({ workspaceId, now, query }, res, { sql, cursors }) {
    const page = await listOffers(sql, { workspaceId, now, status: query.status, limit: query.limit, after: query.after });
    const next = page.next && cursors.encode({ list: 'offers', workspaceId, status: query.status, ...page.next });
    sendJson(res, 200, { data: page.offers, next_cursor: next } satisfies SuccessBody<'listOffers'>);
  },
};

const oneOffer: ReadOperation<null> = {
  readQuery: () => null,
  async respond({ workspaceId, now, path }, res, { sql }) {
    const offerId = offerIdOrNull(path.id);
    const offer = offerId && (await readOffer(sql, { workspaceId, offerId, now }));
    if (!offer) return reply.notFound(res);
    sendJson(res, 200, { data: offer } satisfies SuccessBody<'getOffer'>);
  },
};

export function offerHandlers(deps: ReadDeps) {
  const list = readHandler(offersList, deps);
  const one = readHandler(oneOffer, deps);
  return { listOffers: list, getOffer: one };
}
