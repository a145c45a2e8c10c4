import type { Queryable } from '../db/connect.js';
import type { Fragment } from './scope.js';

/**
 * A page's LIMIT written into the statement's text, not sent as a parameter.
 *
 * Why: PostgreSQL plans a prepared statement for its parameters' values five times, then keeps
 * one plan for any values if that plan is priced no higher. With the row count a parameter, it
 * prices that plan for an unknown count (a tenth of the rows), so it never keeps it and plans the
 * page again on every request. Written into the text, each page size is its own statement (SPEC.md
 * "API limits" bounds `limit`: at most 101 of each kind), planned once per connection. Measured
 * on the bench data, one connection, key-scoped, planning and running: page 1 of a
 * 1,000,000-offer workspace 0.60 to 0.36 ms, the sent offers 0.82 to 0.45 ms.
 *
 * A value in a condition can tip the same balance (the cursor's position, the clock in the
 * `status=expired` page's deadline ranges): those go in as subqueries, which PostgreSQL cannot see
 * into when planning, so both plans are priced alike (offers.ts, overdue-page.ts). A timeline's
 * lookup by offer is priced alike either way and keeps its parameters.
 */
export function rowLimitSql(sql: Queryable, rows: number): Fragment {
  // Only a whole number ever reaches the text.
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`a row limit must be a whole number, got ${rows}`);
  return sql.unsafe(String(rows)) as unknown as Fragment;
}
