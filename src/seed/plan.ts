import type { Tx } from '../db/connect.js';
import { COMPANIES, FIRST_NAMES, LAST_NAMES, SERVICES } from './names.js';

/** One transaction's share of a seeding run: offers number `from` to `to - 1`. */
export interface Chunk {
  workspaceId: string;
  seed: number;
  from: number;
  to: number;
  now: Date;
}

/** Offers sharing one created_at millisecond, for pagination tie-breaks. */
const TIE_GROUP = 40;

/** Package amounts: 500.00 to 49,999.00 in the smallest unit, a pure function of (offer, package). */
export function packageAmount(tx: Tx, c: Chunk, k: ReturnType<Tx>) {
  return tx`((500 + floor(((hashint8extended(i * 64 + 40 + ${k}, ${c.seed}::int8) & 2147483647)::float8 / 2147483648) * 49500))::int8 * 100)`;
}

/**
 * Creates the temporary table `seed_plan`: one row per offer with its kind, counts and anchor
 * times (all truncated to ms). Each `*_roll` column is one uniform draw in [0, 1) that decides
 * the quantity it is named after (`early_views_roll` also decides whether the recipient's company
 * is shown). Each step is materialized: inlined, every later reference to a time would repeat the
 * whole expression tree of the steps before it, growing exponentially.
 */
export async function planChunk(tx: Tx, c: Chunk): Promise<void> {
  /** Uniform in [0, 1), a pure function of (seed, expression, salt). */
  const r = (salt: number) => tx`((hashint8extended(i * 64 + ${salt}, ${c.seed}::int8) & 2147483647)::float8 / 2147483648)`;
  const now = tx`${c.now}::timestamptz`;
  const amount = (k: ReturnType<typeof tx>) => packageAmount(tx, c, k);
  await tx`
    create temp table seed_plan on commit drop as
    with base as materialized (
      select i,
             ${r(0)} as kind_roll, ${r(1)} as resend_roll, ${r(2)} as signers_roll, ${r(3)} as edits_roll,
             ${r(4)} as views_roll, ${r(5)} as section_views_roll, ${r(6)} as calculator_roll,
             ${r(7)} as summary_roll, ${r(8)} as code_failed_roll, ${r(9)} as age_roll,
             ${r(10)} as send_delay_roll, ${r(11)} as resend_delay_roll, ${r(12)} as deadline_roll,
             ${r(13)} as end_roll, ${r(14)} as early_views_roll, ${r(15)} as layout_roll,
             ${r(16)} as packages_roll, ${r(17)} as company_roll, ${r(18)} as first_name_roll,
             ${r(19)} as last_name_roll, ${r(20)} as service_roll, ${r(21)} as recommended_roll,
             (hashint8extended((i / ${TIE_GROUP}) * 64 + 63, ${c.seed}::int8) & 2147483647)::float8 / 2147483648 as tie_time_roll
        from generate_series(${c.from}::int8, ${c.to - 1}::int8) as i
    ),
    kinds as materialized (
      select b.*,
             case when kind_roll < 0.12 then 'draft' when kind_roll < 0.30 then 'open' when kind_roll < 0.38 then 'overdue'
                  when kind_roll < 0.56 then 'accepted' when kind_roll < 0.64 then 'accepted_multi' when kind_roll < 0.80 then 'expired'
                  when kind_roll < 0.97 then 'withdrawn' else 'declined' end as kind,
             case when layout_roll < 0.75 then 'std' when layout_roll < 0.87 then 'hidden' when layout_roll < 0.93 then 'empty' else 'text' end as layout
        from base b
    ),
    shaped as materialized (
      select k.*,
             case when kind = 'draft' then 0 when resend_roll < 0.25 then 2 else 1 end as sent_versions,
             case when kind = 'accepted_multi' then 2 + floor(signers_roll * 3)::int else 1 end as signer_count,
             floor(edits_roll * 3)::int as edits,
             1 + floor(views_roll * 3)::int as views,
             floor(section_views_roll * 4)::int as section_views,
             (calculator_roll < 0.4)::int as calculator,
             (summary_roll < 0.5)::int as summary,
             (code_failed_roll < 0.25)::int as code_failed,
             case when layout = 'empty' or layout = 'text' then 0 else 1 + floor(packages_roll * 3)::int end as package_count,
             ((i / ${TIE_GROUP}) % 10 = 0 and kind <> 'open') as tie
        from kinds k
    ),
    created as materialized (
      select s.*,
             case
               -- An open offer is placed backwards from its last sending, so its deadline lies after now.
               when kind = 'open' then ${now} - interval '1 day' * (0.5 + age_roll * 9)
                    - case when sent_versions = 2 then interval '1 day' * (1 + resend_delay_roll * 4) else interval '0' end
                    - interval '1 day' * (0.1 + send_delay_roll * 2.9)
               when tie then date_trunc('milliseconds', ${now} - interval '1 day' * (50 + tie_time_roll * 315))
               when kind = 'draft' then ${now} - interval '1 day' * (0.05 + age_roll * 364)
               else ${now} - interval '1 day' * (50 + age_roll * 315)
             end as created_at_exact
        from shaped s
    ),
    sent as materialized (
      select c.*,
             date_trunc('milliseconds', created_at_exact) as created_at,
             case when sent_versions >= 1 then date_trunc('milliseconds', created_at_exact + interval '1 day' * (0.1 + send_delay_roll * 2.9)) end as first_sent_at
        from created c
    ),
    resent as materialized (
      select s.*, case when sent_versions = 2 then date_trunc('milliseconds', first_sent_at + interval '1 day' * (1 + resend_delay_roll * 4)) end as second_sent_at
        from sent s
    ),
    deadline as materialized (
      select s.*, coalesce(second_sent_at, first_sent_at) as last_sent_at,
             date_trunc('milliseconds', coalesce(second_sent_at, first_sent_at) + interval '1 day' * (10 + deadline_roll * 20)) as deadline_at
        from resent s
    ),
    ended as materialized (
      select d.*,
             date_trunc('milliseconds', case
               when kind in ('accepted', 'accepted_multi', 'withdrawn', 'declined') then last_sent_at + (deadline_at - last_sent_at) * (0.05 + end_roll * 0.85)
               when kind = 'expired' then deadline_at
               when kind = 'overdue' then last_sent_at + (deadline_at - last_sent_at) * (0.1 + end_roll * 0.8)
               when kind = 'open' then ${now}
             end) as ended_at
        from deadline d
    ),
    named as materialized (
    select e.*,
           date_trunc('milliseconds', case
             when kind in ('accepted', 'accepted_multi') then last_sent_at + (ended_at - last_sent_at) * 0.6
             when kind in ('withdrawn', 'declined') then last_sent_at + (ended_at - last_sent_at) * 0.9
             when kind = 'expired' then last_sent_at + (deadline_at - last_sent_at) * (0.1 + end_roll * 0.8)
             else ended_at
           end) as reading_ended_at,
           ${tx.array(FIRST_NAMES)}::text[] as first_names,
           ${tx.array(LAST_NAMES)}::text[] as last_names,
           (${tx.array(COMPANIES)}::text[])[1 + floor(company_roll * ${COMPANIES.length})::int] as company,
           (${tx.array(FIRST_NAMES)}::text[])[1 + floor(first_name_roll * ${FIRST_NAMES.length})::int] as first_name,
           (${tx.array(LAST_NAMES)}::text[])[1 + floor(last_name_roll * ${LAST_NAMES.length})::int] as last_name,
           (${tx.array(SERVICES)}::text[])[1 + floor(service_roll * ${SERVICES.length})::int] as service,
           floor(recommended_roll * (package_count + 1))::int as recommended_package,
           -- Run prefix from (workspace, seed), then i: unique per run, and increasing within it, so
           -- the primary keys of offers and of the 10x larger timeline grow at their right edge
           -- instead of splitting pages all over the index. Version 4 and variant bits are set.
           (substr(run.h, 1, 12) || '4' || substr(run.h, 13, 3) || '8' || substr(run.h, 16, 3)
             || lpad(to_hex(i), 12, '0'))::uuid as id
      from ended e
     cross join (select md5(${c.workspaceId}::text || ':' || ${c.seed}::text) as h) run
    ),
    addressed as (
      select n.*, regexp_replace(lower(company), '[^a-z0-9]+', '-', 'g') || '.example' as domain from named n
    )
    select a.*,
           lower(first_name) || '.' || lower(last_name) || '@' || domain as recipient_email,
           case when layout in ('std', 'hidden') then ${amount(tx`case when recommended_package > 0 then recommended_package else 1 end`)} else 0 end as value_amount
      from addressed a`;

  // Temporary tables have no statistics until analysed; without them the joins below may be planned as nested loops.
  await tx`analyze seed_plan`;
}
