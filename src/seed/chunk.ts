import type { Tx } from '../db/connect.js';
import { FIRST_NAMES, PACKAGES, SIGNER_JOB_TITLES, USER_AGENTS } from './names.js';
import { packageAmount, planChunk, type Chunk } from './plan.js';

/** Seeds one chunk in the calling transaction from its plan (plan.ts); returns the timeline entries written. */
export async function seedChunk(tx: Tx, c: Chunk): Promise<number> {
  const now = tx`${c.now}::timestamptz`;
  const amount = (k: ReturnType<typeof tx>) => packageAmount(tx, c, k);

  // Bulk statements gain nothing from JIT, and compiling these wide expressions costs seconds.
  await tx`set local jit = off`;

  // 1. The plan: one row per offer (plan.ts).
  await planChunk(tx, c);

  // 2. The timeline, staged: phases expanded to entries, numbered 1..n per offer in time order.
  await tx`
    create temp table seed_events on commit drop as
    with phases as (
      select p.i, ph.phase, ph.sub, ph.type, ph.cnt, ph.t0, ph.t1, ph.version, ph.j
        from seed_plan p
       cross join lateral (values
         (1, 0, 'created', 1, p.created_at, p.created_at, null::int, null::int),
         (2, 0, 'edited', p.edits, p.created_at,
            case when p.kind = 'draft' then least(p.created_at + interval '10 days', ${now}) else p.first_sent_at end, null, null),
         (3, 0, 'sent', (p.sent_versions >= 1)::int, p.first_sent_at, p.first_sent_at, 1, null),
         (4, 0, 'viewed', case when p.sent_versions = 2 then 1 + floor(p.early_views_roll * 2)::int else 0 end, p.first_sent_at, p.first_sent_at + (p.second_sent_at - p.first_sent_at) / 2, 1, null),
         (5, 0, 'edited', (p.sent_versions = 2)::int, p.first_sent_at + (p.second_sent_at - p.first_sent_at) / 2, p.second_sent_at, null, null),
         (6, 0, 'sent', (p.sent_versions = 2)::int, p.second_sent_at, p.second_sent_at, 2, null),
         (7, 1, 'viewed', (p.sent_versions >= 1)::int, p.last_sent_at, p.last_sent_at + (p.reading_ended_at - p.last_sent_at) / 5, p.sent_versions, null),
         (7, 2, 'section_viewed', case when p.sent_versions >= 1 then p.section_views else 0 end,
            p.last_sent_at + (p.reading_ended_at - p.last_sent_at) / 5, p.last_sent_at + (p.reading_ended_at - p.last_sent_at) * 2 / 5, p.sent_versions, null),
         (7, 3, 'calculator_used', case when p.sent_versions >= 1 then p.calculator else 0 end,
            p.last_sent_at + (p.reading_ended_at - p.last_sent_at) * 2 / 5, p.last_sent_at + (p.reading_ended_at - p.last_sent_at) * 3 / 5, p.sent_versions, null),
         (7, 4, 'summary_viewed', case when p.sent_versions >= 1 then p.summary else 0 end,
            p.last_sent_at + (p.reading_ended_at - p.last_sent_at) * 3 / 5, p.last_sent_at + (p.reading_ended_at - p.last_sent_at) * 4 / 5, p.sent_versions, null),
         (7, 5, 'viewed', case when p.sent_versions >= 1 then p.views - 1 else 0 end,
            p.last_sent_at + (p.reading_ended_at - p.last_sent_at) * 4 / 5, p.reading_ended_at, p.sent_versions, null),
         (9, 0, case p.kind when 'expired' then 'expired' when 'withdrawn' then 'withdrawn' else 'declined' end,
            (p.kind in ('expired', 'withdrawn', 'declined'))::int,
            case when p.kind = 'expired' then p.deadline_at else p.ended_at end,
            case when p.kind = 'expired' then p.deadline_at else p.ended_at end, p.sent_versions, null)
       ) as ph(phase, sub, type, cnt, t0, t1, version, j)
       where ph.cnt > 0
      union all
      -- Acceptance: each signer requests, maybe mistypes, verifies the code, then signs; the last
      -- signature is the acceptance, at ended_at (= accepted_at).
      select p.i, 8, s.j * 4 + st.step, st.type, st.cnt, st.t0, st.t1, p.sent_versions, s.j
        from seed_plan p
       cross join lateral generate_series(1, p.signer_count) as s(j)
       cross join lateral (select p.reading_ended_at + (p.ended_at - p.reading_ended_at) * ((s.j - 1)::float8 / p.signer_count) as w0,
                                  p.reading_ended_at + (p.ended_at - p.reading_ended_at) * (s.j::float8 / p.signer_count) as w1) w
       cross join lateral (values
         (0, 'code_requested', 1, w.w0, w.w0 + (w.w1 - w.w0) / 4),
         (1, 'code_failed', (s.j = 1 and p.code_failed = 1)::int, w.w0 + (w.w1 - w.w0) / 4, w.w0 + (w.w1 - w.w0) / 2),
         (2, 'code_verified', 1, w.w0 + (w.w1 - w.w0) / 2, w.w0 + (w.w1 - w.w0) * 3 / 4),
         (3, case when s.j < p.signer_count then 'signed' else 'accepted' end, 1, w.w1, w.w1)
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
           p.created_at, t.updated_at, p.last_sent_at, p.deadline_at,
           case when p.kind in ('accepted', 'accepted_multi') then p.ended_at end,
           case when p.kind = 'expired' then p.deadline_at end,
           nullif(p.sent_versions, 0),
           case when p.sent_versions >= 1 then p.first_name || ' ' || p.last_name end,
           case when p.sent_versions >= 1 and p.early_views_roll < 0.9 then p.company end,
           case when p.sent_versions >= 1 then p.recipient_email end,
           case when p.kind = 'accepted' then p.first_name || ' ' || p.last_name
                when p.kind = 'accepted_multi' then p.first_names[1 + ((p.i + p.signer_count) % ${FIRST_NAMES.length})::int] || ' ' || p.last_name end,
           case when p.kind = 'accepted' then p.recipient_email
                when p.kind = 'accepted_multi' then 'signer' || p.signer_count || '@' || p.domain end,
           p.signer_count,
           (select currency from workspaces where id = ${c.workspaceId}::uuid),
           p.value_amount,
           md5(p.id::text || ':link'),
           case when p.sent_versions >= 1 then 'Hello ' || p.first_name || ', here is our offer as discussed.' end,
           t.last_sequence,
           nullif(p.sent_versions, 0)
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
          'Payment within 14 days of invoice.', true, p.packages_roll < 0.5)
     ) as s(position, section_id, kind, title, body, visible, present)
     where s.present`;
  await tx`
    insert into offer_packages (offer_id, section_position, position, name, amount, recommended)
    select p.id, case when p.layout = 'hidden' then 3 else 2 end, k,
           (${tx.array(PACKAGES)}::text[])[k], ${amount(tx`k`)}, k = p.recommended_package
      from seed_plan p
     cross join lateral generate_series(1, p.package_count) as k
    union all
    select p.id, 2, 1, 'Legacy package', ${amount(tx`9`)}, true
      from seed_plan p
     where p.layout = 'hidden'`;

  // 5. The timeline itself, with each type's data (openapi.yaml "OfferEvent" data fields).
  const [inserted] = await tx<{ n: number }[]>`
    with rows as (
      insert into offer_events (offer_id, sequence, type, occurred_at, version, data, ip, user_agent)
      select p.id, e.sequence, e.type, e.occurred_at, e.version,
             case e.type
               when 'sent' then jsonb_build_object('recipient_email', p.recipient_email)
               when 'section_viewed' then jsonb_build_object(
                 'section_id', case when p.package_count > 0 and (e.sequence + e.k) % 3 <> 0 then 'pricing' else 'intro' end,
                 'duration_ms', 800 + (hashint8extended(p.i * 4096 + e.sequence, ${c.seed}::int8) & 262143))
               when 'signed' then jsonb_strip_nulls(jsonb_build_object(
                 'signer_email', case when e.j = 1 then p.recipient_email else 'signer' || e.j || '@' || p.domain end,
                 'signer_role', case when (p.i + e.j) % 3 <> 0 then (${tx.array(SIGNER_JOB_TITLES)}::text[])[1 + (e.j - 1) % 4] end,
                 'signing_order', e.j, 'signer_total', p.signer_count))
               when 'expired' then jsonb_build_object('expires_at', api_timestamp(date_trunc('second', p.deadline_at)))
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
    select p.id, p.sent_versions, e.j,
           case when e.j = 1 then p.first_name || ' ' || p.last_name
                else p.first_names[1 + ((p.i + e.j) % ${FIRST_NAMES.length})::int] || ' ' || p.last_name end,
           case when e.j = 1 then p.recipient_email else 'signer' || e.j || '@' || p.domain end,
           case when p.signer_count > 1 and (p.i + e.j) % 3 <> 0 then (${tx.array(SIGNER_JOB_TITLES)}::text[])[1 + (e.j - 1) % 4] end,
           e.occurred_at
      from seed_events e
      join seed_plan p on p.i = e.i
     where e.type in ('signed', 'accepted')`;

  return inserted!.n;
}
