import type { Fragment, Queryable } from '../db/connect.js';
import { overdueSql } from '../domain/offer-state.js';
import { rowLimitSql, unpricedSql } from './planned-once.js';

/**
 * The week of a deadline: exactly the key expression of offers_sent_deadline_week_list_idx
 * (migration 0014), constants written in the text, or the planner cannot match the index.
 */
function deadlineWeekSql(sql: Queryable, value: Fragment) {
  return sql`date_bin(interval '7 days', ${value}, timestamptz '2000-01-03 00:00:00+00')`;
}

export interface OverduePageInput {
  /** The page's workspace, as readInScope names it. */
  workspace: Fragment;
  /** Whether the page follows a previous one (part of the statement's shape). */
  after: boolean;
  /** created_at of the previous page's last row; read only when `after`. */
  afterCreatedAt: string;
  /** The keyset condition past the previous page's last row, for the offers row `alias`. */
  beyond: (alias: string) => Fragment;
  /** Rows to return at least: the page size plus one (the statement may return more, planned-once.ts). */
  take: number;
  now: Date;
}

/**
 * The ids (and creation times, to merge by) of one page of the sent offers past their deadline
 * that the expiry job has not marked yet, newest first (created_at desc, id desc). Newest first
 * would walk every sent offer not yet due; this walks deadlines instead.
 *
 * An offer's deadline lies after its creation (sendOffer refuses a deadline before the sending,
 * which is not before the creation). So:
 * - Bound `m`: take the n + 1 overdue offers with the latest deadlines not after `newest` (now, or
 *   the cursor's creation if earlier; they are all before the cursor), and the oldest creation
 *   among them. At least n + 1 offers of the page's kind are created at or after m, so each offer
 *   of the page is too, and its deadline lies in [m, now]. With fewer than n + 1 found, every
 *   overdue offer due up to `newest` is among them, and one due later is due after newest >= m.
 * - The deadlines in [m, now], by week (offers_sent_deadline_week_list_idx): a week that has ended
 *   holds overdue offers only, in list order, so n + 1 entries of each ended week suffice; the
 *   current week, part overdue and part not yet due, is read by deadline up to now.
 * The page is the newest n + 1 of those: at most n + 1 per week spanned, not every offer due.
 */
export function overduePageIds(sql: Queryable, input: OverduePageInput): Fragment {
  const { workspace, beyond, take } = input;
  // The times are hidden from the planner (planned-once.ts), so the page keeps one plan.
  const now = () => unpricedSql(sql, sql`${input.now}::timestamptz`);
  const newest = () =>
    !input.after
      ? now()
      : unpricedSql(sql, sql`least(${input.now}::timestamptz, ${input.afterCreatedAt}::timestamptz)`);
  const thisWeek = () => unpricedSql(sql, deadlineWeekSql(sql, sql`${input.now}::timestamptz`));
  return sql`
    with bound as materialized (
      select coalesce(min(b.created_at), ${newest()}) as m from (
        select k.created_at from offers k
         where k.workspace_id = ${workspace} and ${overdueSql(sql, 'k', now())}
           and k.expires_at <= ${newest()} ${beyond('k')}
         order by k.expires_at desc
         limit ${rowLimitSql(sql, take)}) b),
    candidates as (
      select c.id, c.created_at
        from bound
       cross join generate_series(${deadlineWeekSql(sql, sql`bound.m`)}, ${thisWeek()} - interval '7 days', interval '7 days') as week(start)
       cross join lateral (
         select k.id, k.created_at from offers k
          where k.workspace_id = ${workspace} and ${overdueSql(sql, 'k', now())}
            and ${deadlineWeekSql(sql, sql`k.expires_at`)} = week.start ${beyond('k')}
          order by k.created_at desc, k.id desc
          limit ${rowLimitSql(sql, take)}) c
      union all
      select k.id, k.created_at from offers k
       where k.workspace_id = ${workspace} and ${overdueSql(sql, 'k', now())}
         and k.expires_at >= ${thisWeek()} ${beyond('k')})
    select c.id, c.created_at from candidates c
     order by c.created_at desc, c.id desc
     limit ${rowLimitSql(sql, take)}`;
}
