import type { Offer, OfferStatus, SuccessBody } from '../../contract.js';
import { OFFER_STATUSES } from '../../domain/offer-state.js';
import { isPositionTime, isUuidText, type Cursor, type CursorShape } from '../../http/cursor.js';
import { readOfferInScope, readOfferPage, type OfferPage, type OfferPosition } from '../../read-model/offers.js';
import { reply } from '../errors.js';
import { offerIdOrNull, readHandler, type ReadDeps, type ReadOperation } from '../read-operation.js';
import { sendJson } from '../../http/respond.js';

/** Defaults of openapi.yaml "listOffers". */
export const OFFERS_DEFAULT_LIMIT = 25;

/** Of unknown values: `Set.has` does not convert, so only a status name is one. */
const STATUSES: ReadonlySet<unknown> = new Set(OFFER_STATUSES);

/**
 * The offers list's cursor carries its status filter (openapi.yaml "Pagination": "The same
 * `status` must be sent on every page of one walk") and the last offer's keyset position. Sealed
 * as `{ l: 'o', w, s, c, i }`: integrators' cursors are read across versions, so the form stays.
 */
export const offersCursor: CursorShape<OfferStatus | null, OfferPosition> = {
  write: ({ workspaceId, walk, position }) => ({ l: 'o', w: workspaceId, s: walk, c: position.createdAt, i: position.id }),
  read(value) {
    const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    if (v.l !== 'o' || !isUuidText(v.w) || !(v.s === null || STATUSES.has(v.s))) return null;
    if (!isPositionTime(v.c) || !isUuidText(v.i)) return null;
    return { workspaceId: v.w, walk: v.s as OfferStatus | null, position: { createdAt: v.c, id: v.i } };
  },
};

interface OffersQuery {
  status: OfferStatus | null;
  limit: number;
  cursor: Cursor<OfferStatus | null, OfferPosition> | null;
}

const offersList: ReadOperation<OffersQuery, OfferPage> = {
  readQuery(query, _path, { cursors }) {
    const status = (query.status as OfferStatus | undefined) ?? null;
    const limit = (query.limit as number | undefined) ?? OFFERS_DEFAULT_LIMIT;
    if (query.cursor === undefined) return { status, limit, cursor: null };
    const cursor = cursors.open(offersCursor, String(query.cursor), status);
    return cursor ? { status, limit, cursor } : { invalid: 'cursor' };
  },
  cursor: (query) => query.cursor,
  read: ({ scope, now, query }, { sql }) =>
    readOfferPage(sql, scope, { now, status: query.status, limit: query.limit, after: query.cursor?.position ?? null }),
  respond({ workspaceId, value: page, query }, res, { cursors }) {
    const next = page.next && cursors.seal(offersCursor, { workspaceId, walk: query.status, position: page.next });
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
