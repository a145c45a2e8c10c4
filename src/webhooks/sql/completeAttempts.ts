import type { Queryable } from '../../db/connect.js';
import { finishDeliveries } from './finishDeliveries.js';
import { clipAttemptText, type AttemptRecord } from './recordAttempt.js';

/** One finished attempt whose consequence touches only its delivery (and at most a streak reset). */
export interface CompletedAttempt extends AttemptRecord {
  leaseToken: string;
  endpointId: string;
  /** null: delivered (succeeded); a date: failed, the next attempt is due then. */
  nextAttemptAt: Date | null;
  /** The attempt ends its delivery's (time for updated_at / finished_at). */
  finishedAt: Date;
  /** A delivered event on its original schedule breaks the endpoint's run of final failures. */
  resetsStreak: boolean;
}

/**
 * Records a batch of attempts and their consequence in one statement (one round trip, no
 * explicit transaction; the batch travels as one JSON parameter): each attempt's line in the delivery log, and its delivery either
 * succeeded (out of webhook_queue, its row written into webhook_delivery_log) or pending again
 * until `nextAttemptAt` (openapi.yaml "Webhook delivery and retries"), if the claim still holds it
 * (status sending, same lease token). Returns the ids whose claim held; the
 * others were cancelled or taken over while in flight, and only their log line is written.
 *
 * A delivered event resets its endpoint's failure streak. Only endpoints whose streak is not 0 are
 * locked, all of them before any delivery row (the `lock_gate` init plan runs first): the same
 * order as pause and removal (endpoint, then its deliveries), so the two cannot deadlock. An
 * endpoint whose streak rose after this statement's snapshot is ordered after this success.
 * Final failures, which count toward the pause, go through their own transaction (engine/final-failure.ts).
 */
export async function completeAttempts(sql: Queryable, attempts: CompletedAttempt[]): Promise<Set<string>> {
  if (attempts.length === 0) return new Set();
  const input = attempts.map((a) => {
    const clipped = clipAttemptText(a);
    return {
      delivery_id: a.deliveryId,
      lease_token: a.leaseToken,
      endpoint_id: a.endpointId,
      attempt: a.attempt,
      attempted_at: a.attemptedAt.toISOString(),
      succeeded: a.succeeded,
      status_code: a.statusCode,
      error: clipped.error,
      duration_ms: clipped.durationMs,
      response_prefix: clipped.responsePrefix,
      signature: a.signature ?? null,
      next_attempt_at: a.nextAttemptAt?.toISOString() ?? null,
      finished_at: a.finishedAt.toISOString(),
      resets_streak: a.resetsStreak,
    };
  });
  const rows = await sql<{ id: string }[]>`
    with input as (
      select *
        from json_to_recordset(${JSON.stringify(input)}::text::json)
             as i(delivery_id uuid, lease_token uuid, endpoint_id uuid, attempt int, attempted_at timestamptz,
                  succeeded boolean, status_code int, error text, duration_ms int, response_prefix text, signature text,
                  next_attempt_at timestamptz, finished_at timestamptz, resets_streak boolean)
    ),
    streaks as materialized (
      select e.id
        from webhook_endpoints e
       where e.id in (select endpoint_id from input where resets_streak and succeeded)
         and e.failure_streak <> 0
       order by e.id
         for no key update
    ),
    -- Delivered: the delivery leaves the queue and its log row is written, once, now, with its
    -- offer and this attempt's status (what the log page shows, migration 0033).
    ${finishDeliveries(sql, {
      name: 'ended',
      ending: sql`
        select i.delivery_id as id, i.lease_token, 'succeeded'::text as end_status, 1 as attempts_added,
               null::text as end_reason, i.finished_at as ended_at, i.status_code as last_response_status
          from input i
         where i.succeeded
           and (select count(*) from streaks) >= 0 -- lock_gate: every endpoint lock before any delivery row`,
    })},
    -- Failed with attempts left: pending again in the queue until the next one is due.
    retried as (
      update webhook_queue d
         set status = 'pending', attempt_count = d.attempt_count + 1, lease_token = null, lease_until = null,
             next_attempt_at = i.next_attempt_at, updated_at = i.finished_at
        from input i
       where d.id = i.delivery_id and d.status = 'sending' and d.lease_token = i.lease_token and not i.succeeded
         and (select count(*) from streaks) >= 0 -- lock_gate, as above
      returning d.id
    ),
    completed as (
      select e.id, i.resets_streak as resets, e.endpoint_id, e.finished_at from ended e join input i on i.delivery_id = e.id
      union all
      select r.id, false, null::uuid, null::timestamptz from retried r
    ),
    logged as (
      insert into webhook_attempts
        (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, error, duration_ms, response_prefix, signature)
      select i.delivery_id, i.endpoint_id, i.attempt, i.attempted_at, i.succeeded, i.status_code, i.error, i.duration_ms,
             i.response_prefix, i.signature
        from input i
    ),
    reset as (
      update webhook_endpoints e
         set failure_streak = 0, updated_at = r.finished_at
        from (select c.endpoint_id, max(c.finished_at) as finished_at from completed c where c.resets group by c.endpoint_id) r
       where e.id = r.endpoint_id and e.id in (select id from streaks)
    )
    select id from completed`;
  return new Set(rows.map((row) => row.id));
}
