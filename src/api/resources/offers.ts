import type { Offer, OfferStatus, SuccessBody } from '../../contract.js';
import { readOfferInScope, readOfferPage, type OfferPage, type OfferPosition } from '../../read-model/offers.js';
import { reply } from '../errors.js';
import { offerIdOrNull, readHandler, type ReadDeps, type ReadOperation } from '../read-operation.js';
import { sendJson } from '../../http/respond.js';

/** Defaults of openapi.yaml "listOffers". */
export const OFFERS_DEFAULT_LIMIT = 25;

interface OffersQuery {
  status: OfferStatus | null;
  limit: number;
  after: OfferPosition | null;
  cursorWorkspace: string | null;
}

const offersList: ReadOperation<OffersQuery, OfferPage> = {
  readQuery(query, _path, { cursors }) {
    const status = (query.status as OfferStatus | undefined) ?? null;
    const limit = (query.limit as number | undefined) ?? OFFERS_DEFAULT_LIMIT;
    if (query.cursor === undefined) return { status, limit, after: null, cursorWorkspace: null };
    const cursor = cursors.decode(String(query.cursor));
    // openapi.yaml "Pagination": "The same `status` must be sent on every page of one walk."
    if (!cursor || cursor.list !== 'offers' || cursor.status !== status) return { invalid: 'cursor' };
    return { status, limit, after: { createdAt: cursor.createdAt, id: cursor.id }, cursorWorkspace: cursor.workspaceId };
  },
  cursorWorkspace: (query) => query.cursorWorkspace,
  read: ({ scope, now, query }, { sql }) => readOfferPage(sql, scope, { now, status: query.status, limit: query.limit, after: query.after }),
  respond({ workspaceId, value: page, query }, res, { cursors }) {
    const next = page.next && cursors.encode({ list: 'offers', workspaceId, status: query.status, ...page.next });
    sendJson(res, 200, { data: page.offers, next_cursor: next } satisfies SuccessBody<'listOffers'>);
  },
};

const oneOffer: ReadOperation<null, Offer | null> = {
  readQuery: () => null,
  read: ({ scope, now, path }, { sql }) => readOfferInScope(sql, scope, { offerId: offerIdOrNull(path.id), now }),
  respond({ value: offer }, res) {
    if (!offer) return reply.notFound(res);
    sendJson(res, 200, { data: offer } satisfies SuccessBody<'getOffer'>);
  },
};

/** Handlers by operationId. */
export function offerHandlers(deps: ReadDeps) {
  const listOffers = readHandler(offersList, deps);
  const getOffer = readHandler(oneOffer, deps);
  return { listOffers, getOffer };
}
