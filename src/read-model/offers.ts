import type { Fragment, Queryable } from '../db/connect.js';
import { overdueSql } from '../domain/offer-state.js';
import { offerColumns, toOffer, toOfferEvent, type EventRow, type OfferRow } from './offer-rows.js';
import { overduePageIds } from './overdue-page.js';
import { rowLimitFor, rowLimitSql, unpricedSql } from './planned-once.js';
import { readInScope, scopedRead, type Scope, type Scoped } from './scope.js';
import type { Offer, OfferEvent, OfferStatus } from './types.js';

/**
 * The read side of offers, shared by the API (GET /offers, /offers/{id}, /offers/{id}/events)
 * and the webhook engine (`data.offer`, `data.event`), so a webhook body always carries the
 * same fields as the API (openapi.yaml "Webhook request": "Same fields as GET /offers/{id}").
 *
 * Every query takes `now` from the caller's Clock: a sent offer whose deadline has passed is
 * reported as `expired` (with `expired_at` = its deadline) before the expiry job has run, and
 * exactly as after it (openapi.yaml "Offer states", rules for reporting; the rule itself is
 * overdueSql in domain/offer-state.ts).
 *
 * The API's reads take a Scope (scope.ts): with the request's key they are also its key check.
 */

/** One offer of the scope's workspace; shaped by whether there is an id to look for. */
const offerInScope = scopedRead({
  key: (hasId: boolean) => (hasId ? 'id' : 'none'),
  read: (sql, hasId, values: { now: Date; offerId: string }, workspace) => sql`
    select ${offerColumns(sql, values.now)}
    from offers o
    where ${hasId ? sql`o.id = ${values.offerId}::uuid` : sql`false`} and o.workspace_id = ${workspace}`,
  order: (sql) => sql`r.id`,
});

/** One offer of the scope's workspace; `offerId` null (an ID of the wrong form) finds nothing. */
export async function readOfferInScope(
  sql: Queryable,
  scope: Scope,
  input: { offerId: string | null; now: Date },
): Promise<Scoped<Offer | null>> {
  const { offerId, now } = input;
  const found = await readInScope<OfferRow, boolean, { now: Date; offerId: string }>(sql, scope, offerInScope, offerId !== null, {
    now,
    offerId: offerId ?? '',
  });
  return found && { workspaceId: found.workspaceId, value: found.value[0] ? toOffer(found.value[0]) : null };
}

/** One offer of a known workspace (the webhook body's `data.offer`). */
export async function readOffer(sql: Queryable, input: { workspaceId: string; offerId: string; now: Date }): Promise<Offer | null> {
  const found = await readOfferInScope(sql, { workspaceId: input.workspaceId }, input);
  return found?.value ?? null;
}

export async function readOfferEvent(
  sql: Queryable,
  input: { offerId: string; sequence: number },
): Promise<OfferEvent | null> {
  const [row] = await sql<EventRow[]>`
    select e.sequence, e.type, api_timestamp(e.occurred_at) as occurred_at, e.version, e.data
    from offer_events e
    where e.offer_id = ${input.offerId}::uuid and e.sequence = ${input.sequence}`;
  return row ? toOfferEvent(row) : null;
}

/** Position of an offer in the list order (created_at desc, id desc). */
export interface OfferPosition {
  createdAt: string;
  id: string;
}

export interface OfferPage {
  offers: Offer[];
  /** Position of the last offer when another page exists, else null. */
  next: OfferPosition | null;
}

/** What a page's statement text depends on: the filter, whether a cursor applies, the row count. */
interface PageShape {
  /** 'sent' and 'expired' are read their own way; any other status is a filter on the column. */
  filter: 'all' | 'sent' | 'expired' | 'status';
  after: boolean;
  /** The row count written in the text (planned-once.ts). */
  rows: number;
}

interface PageValues {
  now: Date;
  status: OfferStatus;
  afterCreatedAt: string;
  afterId: string;
}

/**
 * One page of GET /offers by keyset: (created_at, id) < the previous page's last row, index
 * order `offers_list_idx` / `offers_status_list_idx`, LIMIT n + 1 to learn whether a next page
 * exists. No OFFSET and no COUNT, so page 10,000 costs what page 1 costs.
 */
const offerPage = scopedRead({
  key: (shape: PageShape) => `${shape.filter}:${shape.after ? 'after' : 'first'}:${shape.rows}`,
  read: (sql, shape, values: PageValues, workspace) => {
    const { now } = values;
    const columns = offerColumns(sql, now);
    const beyond = (alias: string) =>
      shape.after
        ? sql`and (${sql(alias)}.created_at, ${sql(alias)}.id) < (${unpricedSql(sql, sql`${values.afterCreatedAt}::timestamptz`)}, ${unpricedSql(sql, sql`${values.afterId}::uuid`)})`
        : sql``;
    const take = shape.rows;
    /**
     * A page found by its ids first (`ids`, index-only where it can be), then only its rows are
     * read and shaped: the sent offers on either side of their deadline, and `status=expired`.
     */
    const pageByIds = (ids: Fragment) => sql`
      select ${columns}
        from (${ids}) page_ids
        join offers o on o.id = page_ids.id
       order by o.created_at desc, o.id desc`;
    if (shape.filter === 'expired') {
      // Two index-ordered streams of ids, each at most n + 1 rows, merged: offers the expiry job
      // has marked, and sent offers whose deadline has passed but are not marked yet. Shaping
      // the rows only after the merge halves the rows read and shaped (PostgreSQL's execution of
      // the first page on the bench data: 0.75 ms against 0.96).
      return pageByIds(sql`
        select m.id from (
          (select o.id, o.created_at from offers o
            where o.workspace_id = ${workspace} and o.status = 'expired' ${beyond('o')}
            order by o.created_at desc, o.id desc limit ${rowLimitSql(sql, take)})
          union all
          (${overduePageIds(sql, { workspace, after: shape.after, afterCreatedAt: values.afterCreatedAt, beyond, take, now })})
        ) m
        order by m.created_at desc, m.id desc
        limit ${rowLimitSql(sql, take)}`);
    }
    if (shape.filter === 'sent') {
      /**
       * Not yet due: an index-only walk of offers_sent_list_idx (it covers expires_at), newest
       * first; a plain index scan would read the table row of every sent offer it passes.
       */
      return pageByIds(sql`
        select k.id from offers k
         where k.workspace_id = ${workspace} and k.status = 'sent' and not ${overdueSql(sql, 'k', now)} ${beyond('k')}
         order by k.created_at desc, k.id desc
         limit ${rowLimitSql(sql, take)}`);
    }
    const filter = shape.filter === 'status' ? sql`and o.status = ${values.status}` : sql``;
    return sql`
      select ${columns} from offers o
      where o.workspace_id = ${workspace} ${filter} ${beyond('o')}
      order by o.created_at desc, o.id desc
      limit ${rowLimitSql(sql, take)}`;
  },
  order: (sql) => sql`r.position::timestamptz desc, r.id desc`,
});

export async function readOfferPage(
  sql: Queryable,
  scope: Scope,
  input: { status: OfferStatus | null; after: OfferPosition | null; limit: number; now: Date },
): Promise<Scoped<OfferPage>> {
  const { status, after, limit, now } = input;
  const shape: PageShape = {
    filter: status === null ? 'all' : status === 'sent' || status === 'expired' ? status : 'status',
    after: after !== null,
    rows: rowLimitFor(limit + 1),
  };
  // Values a shape does not read are placeholders: only the values in the text are sent.
  const values: PageValues = { now, status: status ?? 'sent', afterCreatedAt: after?.createdAt ?? '', afterId: after?.id ?? '' };
  const found = await readInScope<OfferRow, PageShape, PageValues>(sql, scope, offerPage, shape, values);
  if (!found) return null;
  const rows = found.value;
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    workspaceId: found.workspaceId,
    value: { offers: pageRows.map(toOffer), next: hasMore && last ? { createdAt: last.position, id: last.id } : null },
  };
}

export interface OfferEventPage {
  /** null when the offer does not exist in this workspace. */
  events: OfferEvent[] | null;
  /** Sequence of the last entry when another page exists, else null. */
  nextAfterSequence: number | null;
}

interface TimelineValues {
  now: Date;
  offerId: string;
  afterSequence: number;
  take: number;
}

/**
 * One page of an offer's timeline in sequence order. The workspace check and the page are one
 * statement (one round trip): a missing or foreign offer yields no row at all. Shaped by whether
 * there is an id to look for; the row count stays a parameter (planned-once.ts).
 */
const timelinePage = scopedRead({
  key: (hasId: boolean) => (hasId ? 'id' : 'none'),
  read: (sql, hasId, values: TimelineValues, workspace) => sql`
    select true as found, e.sequence, e.type, api_timestamp(e.occurred_at) as occurred_at, e.version, e.data
    from offers o
    left join lateral (
      select * from offer_events e
      where e.offer_id = o.id and e.sequence > ${values.afterSequence}
      order by e.sequence
      limit ${values.take}
    ) e on true
    where ${hasId ? sql`o.id = ${values.offerId}::uuid` : sql`false`} and o.workspace_id = ${workspace}`,
  order: (sql) => sql`r.sequence`,
});

export async function readOfferEventPage(
  sql: Queryable,
  scope: Scope,
  input: { offerId: string | null; afterSequence: number; limit: number; now: Date },
): Promise<Scoped<OfferEventPage>> {
  const { offerId } = input;
  const found = await readInScope<EventRow & { found: boolean; sequence: number | null }, boolean, TimelineValues>(
    sql,
    scope,
    timelinePage,
    offerId !== null,
    { now: input.now, offerId: offerId ?? '', afterSequence: input.afterSequence, take: input.limit + 1 },
  );
  if (!found) return null;
  const rows = found.value;
  if (rows.length === 0) return { workspaceId: found.workspaceId, value: { events: null, nextAfterSequence: null } };
  const entries = rows.filter((row): row is EventRow & { found: boolean } => row.sequence !== null);
  const hasMore = entries.length > input.limit;
  const page = hasMore ? entries.slice(0, input.limit) : entries;
  return {
    workspaceId: found.workspaceId,
    value: { events: page.map(toOfferEvent), nextAfterSequence: hasMore ? page[page.length - 1]!.sequence : null },
  };
}
