import type { Sql, Tx } from '../db/connect.js';
import { invalidInput } from './errors.js';
import { requireInteger } from './validate.js';
import { requireWorkspace } from './accounts.js';
import { COMPANIES, FIRST_NAMES, LAST_NAMES, PACKAGES, ROLES, SERVICES, USER_AGENTS } from './seed-names.js';

export { seedDemoWorkspace } from './demo-seed.js';

/**
 * Bulk seeding of realistic offers for demos and benchmarks (`offerdesk seed`). A benchmark
 * seeds 1,000,000 offers with about 10,000,000 timeline entries, so everything is set-based SQL:
 * per chunk of offers, one statement per table, driven by a deterministic PRNG computed in SQL
 * (`hashint8extended(i * 64 + salt, seed)`), so one seed always yields the same data, ids included.
 *
 * Every offer gets a full, consistent lifecycle: the rows obey every CHECK constraint and the
 * shape rules of SPEC.md "Offer" (a draft has no sent_at, expires_at, version or recipient; an
 * accepted offer has accepted_at and accepted_by; an expired one expired_at), its timeline is
 * 1..last_sequence without gaps in time order, updated_at is its last entry's time, value follows
 * the rule of value.ts (a test recomputes it), and no entry lies after `now`.
 *
 * Mix: draft, sent with an open deadline, sent past its deadline (the job has not run yet),
 * accepted by one signer, accepted by several signers (signed entries, then accepted), expired,
 * withdrawn, and a few declined (SPEC.md shows no move into declined; the rows exist so the status
 * filter can be exercised). Every timeline type appears. One offer in ten belongs to a group of 40
 * created in the same millisecond, for keyset pagination's tie-break on id.
 *
 * Seeded history writes no webhook outbox rows: these events happened before anyone subscribed.
 */

export interface SeedOffersInput {
  workspaceId: string;
  offers: number;
  /** Same seed, same workspace: same data. Seeding a workspace twice needs two seeds. */
  randomSeed: number;
  /** No seeded entry lies after this time; open deadlines lie after it. */
  now: Date;
  /** Offers per transaction (one statement per table each). */
  chunkSize?: number;
  /** Chunks seeded at once, each on its own connection (the pool must allow that many). */
  parallel?: number;
  onProgress?: (progress: SeedProgress) => void;
}

export interface SeedProgress {
  offers: number;
  events: number;
  total: number;
}

export const MAX_SEED_OFFERS = 10_000_000;
export const DEFAULT_SEED_CHUNK = 25_000;
export const DEFAULT_SEED_PARALLEL = 4;
/** Offers sharing one created_at millisecond, for pagination tie-breaks. */
const TIE_GROUP = 40;

export async function seedOffers(sql: Sql, input: SeedOffersInput): Promise<{ offers: number; events: number }> {
  const total = requireInteger(input.offers, 'offers', 1, MAX_SEED_OFFERS);
  const seed = requireInteger(input.randomSeed, 'random seed', 0, 2_147_483_647);
  const chunk = requireInteger(input.chunkSize ?? DEFAULT_SEED_CHUNK, 'chunk size', 1, 1_000_000);
  const parallel = requireInteger(input.parallel ?? DEFAULT_SEED_PARALLEL, 'parallel', 1, 32);
  const workspace = await requireWorkspace(sql, input.workspaceId);
  const starts = Array.from({ length: Math.ceil(total / chunk) }, (_, k) => k * chunk);
  let offers = 0;
  let events = 0;
  let failure: unknown;
  // Chunks touch disjoint rows, so they run side by side on several connections of the pool.
  const worker = async (): Promise<void> => {
    for (let from = starts.shift(); from !== undefined && failure === undefined; from = starts.shift()) {
      const to = Math.min(total, from + chunk);
      let seeded: number;
      try {
        seeded = (await sql.begin((tx) => seedChunk(tx, { workspaceId: workspace.id, seed, from, to, now: input.now }))) as number;
      } catch (error) {
        failure ??= error;
        return;
      }
      events += seeded;
      offers += to - from;
      input.onProgress?.({ offers, events, total });
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, starts.length) }, worker));
  if (failure !== undefined) {
    const e = failure as { code?: string; constraint_name?: string };
    if (e.code === '23505' && e.constraint_name === 'offers_pkey') {
      throw invalidInput(`workspace ${workspace.id} already holds offers of random seed ${seed}; use another --random-seed`);
    }
    throw failure;
  }
  return { offers: total, events };
}

interface Chunk {
  workspaceId: string;
  seed: number;
  from: number;
  to: number;
  now: Date;
}

async function seedChunk(tx: Tx, c: Chunk): Promise<number> {
  /** Uniform in [0, 1), a pure function of (seed, expression, salt). */
  const r = (salt: number) => tx`((hashint8extended(i * 64 + ${salt}, ${c.seed}::int8) & 2147483647)::float8 / 2147483648)`;
  const now = tx`${c.now}::timestamptz`;

  // Package amounts: 500.00 to 49,999.00 in the smallest unit, a pure function of (offer, package).
  const amount = (k: ReturnType<typeof tx>) =>
    tx`((500 + floor(((hashint8extended(i * 64 + 40 + ${k}, ${c.seed}::int8) & 2147483647)::float8 / 2147483648) * 49500))::int8 * 100)`;

  // Bulk statements gain nothing from JIT, and compiling these wide expressions costs seconds.
  await tx`set local jit = off`;

  // 1. The plan: one row per offer with its kind, counts and anchor times (all truncated to ms).
  // Each step is materialized: inlined, every later reference to a time would repeat the whole
  // expression tree of the steps before it, growing exponentially.
  await tx`
    create temp table seed_plan on commit drop as
    with base as materialized (
      select i,
             ${r(0)} as r0, ${r(1)} as r1, ${r(2)} as r2, ${r(3)} as r3, ${r(4)} as r4, ${r(5)} as r5,
             ${r(6)} as r6, ${r(7)} as r7, ${r(8)} as r8, ${r(9)} as r9, ${r(10)} as r10, ${r(11)} as r11,
             ${r(12)} as r12, ${r(13)} as r13, ${r(14)} as r14, ${r(15)} as r15, ${r(16)} as r16,
             ${r(17)} as r17, ${r(18)} as r18, ${r(19)} as r19, ${r(20)} as r20, ${r(21)} as r21,
             (hashint8extended((i / ${TIE_GROUP}) * 64 + 63, ${c.seed}::int8) & 2147483647)::float8 / 2147483648 as rg
        from generate_series(${c.from}::int8, ${c.to - 1}::int8) as i
    ),
    kinds as materialized (
      select b.*,
             case when r0 < 0.12 then 'draft' when r0 < 0.30 then 'open' when r0 < 0.38 then 'overdue'
                  when r0 < 0.56 then 'accepted' when r0 < 0.64 then 'accepted_multi' when r0 < 0.80 then 'expired'
                  when r0 < 0.97 then 'withdrawn' else 'declined' end as kind,
             case when r15 < 0.75 then 'std' when r15 < 0.87 then 'hidden' when r15 < 0.93 then 'empty' else 'text' end as layout
        from base b
    ),
    shaped as materialized (
      select k.*,
             case when kind = 'draft' then 0 when r1 < 0.25 then 2 else 1 end as nv,
             case when kind = 'accepted_multi' then 2 + floor(r2 * 3)::int else 1 end as ns,
             floor(r3 * 3)::int as edits,
             1 + floor(r4 * 3)::int as views,
             floor(r5 * 4)::int as section_views,
             (r6 < 0.4)::int as calculator,
             (r7 < 0.5)::int as summary,
             (r8 < 0.25)::int as code_failed,
             case when layout = 'empty' or layout = 'text' then 0 else 1 + floor(r16 * 3)::int end as np,
             ((i / ${TIE_GROUP}) % 10 = 0 and kind <> 'open') as tie
        from kinds k
    ),
    created as materialized (
      select s.*,
             case
               -- An open offer is placed backwards from its last sending, so its deadline lies after now.
               when kind = 'open' then ${now} - interval '1 day' * (0.5 + r9 * 9)
                    - case when nv = 2 then interval '1 day' * (1 + r11 * 4) else interval '0' end
                    - interval '1 day' * (0.1 + r10 * 2.9)
               when tie then date_trunc('milliseconds', ${now} - interval '1 day' * (50 + rg * 315))
               when kind = 'draft' then ${now} - interval '1 day' * (0.05 + r9 * 364)
               else ${now} - interval '1 day' * (50 + r9 * 315)
             end as c0
        from shaped s
    ),
    sent as materialized (
      select c.*,
             date_trunc('milliseconds', c0) as created_at,
             case when nv >= 1 then date_trunc('milliseconds', c0 + interval '1 day' * (0.1 + r10 * 2.9)) end as s1
        from created c
    ),
    resent as materialized (
      select s.*, case when nv = 2 then date_trunc('milliseconds', s1 + interval '1 day' * (1 + r11 * 4)) end as s2
        from sent s
    ),
    deadline as materialized (
      select s.*, coalesce(s2, s1) as ls,
             date_trunc('milliseconds', coalesce(s2, s1) + interval '1 day' * (10 + r12 * 20)) as x
        from resent s
    ),
    ended as materialized (
      select d.*,
             date_trunc('milliseconds', case
               when kind in ('accepted', 'accepted_multi', 'withdrawn', 'declined') then ls + (x - ls) * (0.05 + r13 * 0.85)
               when kind = 'expired' then x
               when kind = 'overdue' then ls + (x - ls) * (0.1 + r13 * 0.8)
               when kind = 'open' then ${now}
             end) as e_end
        from deadline d
    ),
    named as materialized (
    select e.*,
           date_trunc('milliseconds', case
             when kind in ('accepted', 'accepted_multi') then ls + (e_end - ls) * 0.6
             when kind in ('withdrawn', 'declined') then ls + (e_end - ls) * 0.9
             when kind = 'expired' then ls + (x - ls) * (0.1 + r13 * 0.8)
             else e_end
           end) as act_end,
           ${tx.array(FIRST_NAMES)}::text[] as first_names,
           ${tx.array(LAST_NAMES)}::text[] as last_names,
           (${tx.array(COMPANIES)}::text[])[1 + floor(r17 * ${COMPANIES.length})::int] as company,
           (${tx.array(FIRST_NAMES)}::text[])[1 + floor(r18 * ${FIRST_NAMES.length})::int] as first_name,
           (${tx.array(LAST_NAMES)}::text[])[1 + floor(r19 * ${LAST_NAMES.length})::int] as last_name,
           (${tx.array(SERVICES)}::text[])[1 + floor(r20 * ${SERVICES.length})::int] as service,
           floor(r21 * (np + 1))::int as rec,
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
           case when layout in ('std', 'hidden') then ${amount(tx`case when rec > 0 then rec else 1 end`)} else 0 end as value_amount
      from addressed a`;

  // Temporary tables have no statistics until analysed; without them the joins below may be planned as nested loops.
  await tx`analyze seed_plan`;

  // 2. The timeline, staged: phases expanded to entries, numbered 1..n per offer in time order.
  await tx`
    create temp table seed_events on commit drop as
    with phases as (
      select p.i, ph.phase, ph.sub, ph.type, ph.cnt, ph.t0, ph.t1, ph.version, ph.j
        from seed_plan p
       cross join lateral (values
         (1, 0, 'created', 1, p.created_at, p.created_at, null::int, null::int),
         (2, 0, 'edited', p.edits, p.created_at,
            case when p.kind = 'draft' then least(p.created_at + interval '10 days', ${now}) else p.s1 end, null, null),
         (3, 0, 'sent', (p.nv >= 1)::int, p.s1, p.s1, 1, null),
         (4, 0, 'viewed', case when p.nv = 2 then 1 + floor(p.r14 * 2)::int else 0 end, p.s1, p.s1 + (p.s2 - p.s1) / 2, 1, null),
         (5, 0, 'edited', (p.nv = 2)::int, p.s1 + (p.s2 - p.s1) / 2, p.s2, null, null),
         (6, 0, 'sent', (p.nv = 2)::int, p.s2, p.s2, 2, null),
         (7, 1, 'viewed', (p.nv >= 1)::int, p.ls, p.ls + (p.act_end - p.ls) / 5, p.nv, null),
         (7, 2, 'section_viewed', case when p.nv >= 1 then p.section_views else 0 end,
            p.ls + (p.act_end - p.ls) / 5, p.ls + (p.act_end - p.ls) * 2 / 5, p.nv, null),
         (7, 3, 'calculator_used', case when p.nv >= 1 then p.calculator else 0 end,
            p.ls + (p.act_end - p.ls) * 2 / 5, p.ls + (p.act_end - p.ls) * 3 / 5, p.nv, null),
         (7, 4, 'summary_viewed', case when p.nv >= 1 then p.summary else 0 end,
            p.ls + (p.act_end - p.ls) * 3 / 5, p.ls + (p.act_end - p.ls) * 4 / 5, p.nv, null),
         (7, 5, 'viewed', case when p.nv >= 1 then p.views - 1 else 0 end,
            p.ls + (p.act_end - p.ls) * 4 / 5, p.act_end, p.nv, null),
         (9, 0, case p.kind when 'expired' then 'expired' when 'withdrawn' then 'withdrawn' else 'declined' end,
            (p.kind in ('expired', 'withdrawn', 'declined'))::int,
            case when p.kind = 'expired' then p.x else p.e_end end,
            case when p.kind = 'expired' then p.x else p.e_end end, p.nv, null)
       ) as ph(phase, sub, type, cnt, t0, t1, version, j)
       where ph.cnt > 0
      union all
      -- Acceptance: each signer requests, maybe mistypes, verifies the code, then signs; the last
      -- signature is the acceptance, at e_end (= accepted_at).
      select p.i, 8, s.j * 4 + st.step, st.type, st.cnt, st.t0, st.t1, p.nv, s.j
        from seed_plan p
       cross join lateral generate_series(1, p.ns) as s(j)
       cross join lateral (select p.act_end + (p.e_end - p.act_end) * ((s.j - 1)::float8 / p.ns) as w0,
                                  p.act_end + (p.e_end - p.act_end) * (s.j::float8 / p.ns) as w1) w
       cross join lateral (values
         (0, 'code_requested', 1, w.w0, w.w0 + (w.w1 - w.w0) / 4),
         (1, 'code_failed', (s.j = 1 and p.code_failed = 1)::int, w.w0 + (w.w1 - w.w0) / 4, w.w0 + (w.w1 - w.w0) / 2),
         (2, 'code_verified', 1, w.w0 + (w.w1 - w.w0) / 2, w.w0 + (w.w1 - w.w0) * 3 / 4),
         (3, case when s.j < p.ns then 'signed' else 'accepted' end, 1, w.w1, w.w1)
       ) as st(step, type, cnt, t0, t1)
       where p.kind in ('accepted', 'accepted_multi') and st.cnt > 0
    )
    select ph.i,
           row_number() over (partition by ph.i order by ph.phase, ph.sub, k)::int as sequence,
           ph.type,
           date_trunc('milliseconds', ph.t0 + (ph.t1 - ph.t0) * (k::float8 / (ph.cnt + 1))) as occurred_at,
           ph.version, ph.j, k
      from phases ph
     cross join lateral generate_series(1, ph.cnt) as k`;

  await tx`analyze seed_events`;

  // 3. Offers, with last_sequence and updated_at taken from their staged timeline.
  await tx`
    insert into offers (id, workspace_id, title, status, created_at, updated_at, sent_at, expires_at, accepted_at,
                        expired_at, version, recipient_name, recipient_company, recipient_email,
                        accepted_by_name, accepted_by_email, signers_required, currency, value_amount,
                        public_token, message, last_sequence, first_viewed_version)
    select p.id, ${c.workspaceId}::uuid, p.service || ' for ' || p.company,
           case p.kind when 'open' then 'sent' when 'overdue' then 'sent' when 'accepted_multi' then 'accepted' else p.kind end,
           p.created_at, t.updated_at, p.ls, p.x,
           case when p.kind in ('accepted', 'accepted_multi') then p.e_end end,
           case when p.kind = 'expired' then p.x end,
           nullif(p.nv, 0),
           case when p.nv >= 1 then p.first_name || ' ' || p.last_name end,
           case when p.nv >= 1 and p.r14 < 0.9 then p.company end,
           case when p.nv >= 1 then p.recipient_email end,
           case when p.kind = 'accepted' then p.first_name || ' ' || p.last_name
                when p.kind = 'accepted_multi' then p.first_names[1 + ((p.i + p.ns) % ${FIRST_NAMES.length})::int] || ' ' || p.last_name end,
           case when p.kind = 'accepted' then p.recipient_email
                when p.kind = 'accepted_multi' then 'signer' || p.ns || '@' || p.domain end,
           p.ns,
           (select currency from workspaces where id = ${c.workspaceId}::uuid),
           p.value_amount,
           md5(p.id::text || ':link'),
           case when p.nv >= 1 then 'Hello ' || p.first_name || ', here is our offer as discussed.' end,
           t.last_sequence,
           nullif(p.nv, 0)
      from seed_plan p
      join (select i, count(*)::int as last_sequence, max(occurred_at) as updated_at from seed_events group by i) t
        on t.i = p.i`;

  // 4. Sections and packages, shaped by the layout (value above follows value.ts's rule on them).
  await tx`
    insert into offer_sections (offer_id, position, section_id, kind, title, body, visible)
    select p.id, s.position, s.section_id, s.kind, s.title, s.body, s.visible
      from seed_plan p
     cross join lateral (values
       (1, 'intro', 'text', 'About this offer', 'Thank you for your enquiry. This offer covers ' || p.service || '.', true, true),
       (2, 'pricing-2025', 'pricing', 'Previous pricing', '', false, p.layout = 'hidden'),
       (case when p.layout = 'hidden' then 3 else 2 end, 'pricing', 'pricing', 'Your investment', '', true,
          p.layout in ('std', 'hidden', 'empty')),
       (case p.layout when 'hidden' then 4 when 'text' then 2 else 3 end, 'terms', 'text', 'Terms',
          'Payment within 14 days of invoice.', true, p.r16 < 0.5)
     ) as s(position, section_id, kind, title, body, visible, present)
     where s.present`;
  await tx`
    insert into offer_packages (offer_id, section_position, position, name, amount, recommended)
    select p.id, case when p.layout = 'hidden' then 3 else 2 end, k,
           (${tx.array(PACKAGES)}::text[])[k], ${amount(tx`k`)}, k = p.rec
      from seed_plan p
     cross join lateral generate_series(1, p.np) as k
    union all
    select p.id, 2, 1, 'Legacy package', ${amount(tx`9`)}, true
      from seed_plan p
     where p.layout = 'hidden'`;

  // 5. The timeline itself, with each type's data (SPEC.md "Offer event" data fields).
  const [inserted] = await tx<{ n: number }[]>`
    with rows as (
      insert into offer_events (offer_id, sequence, type, occurred_at, version, data, ip, user_agent)
      select p.id, e.sequence, e.type, e.occurred_at, e.version,
             case e.type
               when 'sent' then jsonb_build_object('recipient_email', p.recipient_email)
               when 'section_viewed' then jsonb_build_object(
                 'section_id', case when p.np > 0 and (e.sequence + e.k) % 3 <> 0 then 'pricing' else 'intro' end,
                 'duration_ms', 800 + (hashint8extended(p.i * 4096 + e.sequence, ${c.seed}::int8) & 262143))
               when 'signed' then jsonb_strip_nulls(jsonb_build_object(
                 'signer_email', case when e.j = 1 then p.recipient_email else 'signer' || e.j || '@' || p.domain end,
                 'signer_role', case when (p.i + e.j) % 3 <> 0 then (${tx.array(ROLES)}::text[])[1 + (e.j - 1) % 4] end,
                 'signing_order', e.j, 'signer_total', p.ns))
               when 'expired' then jsonb_build_object('expires_at', api_timestamp(date_trunc('second', p.x)))
               else case when e.j is null then '{}'::jsonb else jsonb_build_object(
                 'signer_email', case when e.j = 1 then p.recipient_email else 'signer' || e.j || '@' || p.domain end) end
             end,
             case when e.type = 'viewed' then ('203.0.113.' || 1 + (hashint8extended(p.i * 4096 + e.sequence, ${c.seed}::int8) & 127))::inet end,
             case when e.type = 'viewed' then (${tx.array(USER_AGENTS)}::text[])[1 + ((p.i + e.sequence) % 3)::int] end
        from seed_events e
        join seed_plan p on p.i = e.i
       order by e.i, e.sequence
      returning 1
    )
    select count(*)::int as n from rows`;

  // 6. Signatures of the accepted version, one per signer, dated like their timeline entries.
  await tx`
    insert into offer_signatures (offer_id, version, signing_order, signer_name, signer_email, signer_role, signed_at)
    select p.id, p.nv, e.j,
           case when e.j = 1 then p.first_name || ' ' || p.last_name
                else p.first_names[1 + ((p.i + e.j) % ${FIRST_NAMES.length})::int] || ' ' || p.last_name end,
           case when e.j = 1 then p.recipient_email else 'signer' || e.j || '@' || p.domain end,
           case when p.ns > 1 and (p.i + e.j) % 3 <> 0 then (${tx.array(ROLES)}::text[])[1 + (e.j - 1) % 4] end,
           e.occurred_at
      from seed_events e
      join seed_plan p on p.i = e.i
     where e.type in ('signed', 'accepted')`;

  return inserted!.n;
}
