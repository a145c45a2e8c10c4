import type { Fragment, Queryable } from '../db/connect.js';

/**
 * The row counts a page's statement may be written with, smallest first (`limit` + 1 for the
 * next-page check, up to 101: openapi.yaml "Limits").
 */
const ROW_LIMITS = [2, 11, 26, 51, 101] as const;

/**
 * A page's LIMIT written into the statement's text, not sent as a parameter: at least `rows`,
 * rounded up to one of ROW_LIMITS. The caller keeps the rows it needs of those read.
 *
 * Why written: PostgreSQL plans a prepared statement for its parameters' values five times, then
 * keeps one plan for any values if that plan is priced no higher. With the row count a parameter,
 * it prices that plan for an unknown count (a tenth of the rows), so it never keeps it and plans
 * the page again on every request. Written into the text, each row count is its own statement,
 * planned once per connection. On the bench data (one connection, key-scoped, planning and
 * running), page 1 of a 1,000,000-offer workspace then takes 0.36 ms against 0.60, the sent offers
 * 0.45 ms against 0.82.
 *
 * Why rounded: each text is a prepared statement and a kept plan in every connection that ran it;
 * one per page size would let a client walking every size make hundreds of each kind per
 * connection. Five sizes cost at most a page of ten more rows than asked for at the small end and
 * twice the rows at 51.
 *
 * A value in a condition can tip the same balance: see unpricedSql. A timeline's lookup by offer
 * is priced alike either way and keeps its parameters.
 */
export function rowLimitSql(sql: Queryable, rows: number): Fragment {
  return sql.unsafe(String(rowLimitFor(rows))) as unknown as Fragment;
}

/**
 * The row count rowLimitSql writes for `rows`: part of a page statement's shape, so a statement
 * built once (db/once-built.ts) is built once per size, not per count asked for.
 */
export function rowLimitFor(rows: number): number {
  // Only a whole number ever reaches the text. A count above the largest size (no API request
  // asks for one; the read model's own callers may) is written as it is.
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`a row limit must be a whole number, got ${rows}`);
  return ROW_LIMITS.find((size) => size >= rows) ?? rows;
}

/**
 * `value` as a subquery, which PostgreSQL runs once before the rest of the statement and cannot
 * see into when planning.
 *
 * Why: a plan made for the values at hand prices a condition by its value (a cursor's position,
 * the clock in the `status=expired` page's deadline ranges, the size of a workspace named by id),
 * the plan for any values by a guess; when the first comes out cheaper, PostgreSQL never keeps the
 * second and plans the page on every request (rowLimitSql above). Hidden from both, the value
 * is priced alike by both and the plan for any values is kept.
 */
export function unpricedSql(sql: Queryable, value: Fragment): Fragment {
  return sql`(select ${value})`;
}
