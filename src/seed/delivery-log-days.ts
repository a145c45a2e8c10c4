import { DAY } from '../clock.js';
import type { Sql } from '../db/connect.js';
import { SEED_TYPES } from './delivery-log.js';

/**
 * One UTC day of a busy delivery log, set-based (the benchmark's `--log-rows` log; tests of the
 * partitioned log): `perDay` finished deliveries into the day's log partition and their attempts
 * into the day's attempts partition, with their messages, in one transaction (a day is all there
 * or not at all). Of them 88 % go to the first two endpoints, which share their messages, 2 % to
 * the third, both of `workspaceId`, and 10 % to the fourth, of `otherId`; 6 % failed (8 attempts),
 * 2 % cancelled (none), the rest succeeded (one); types cycle through six, four events per offer.
 * Delivery i finishes at day + 10 s + i x (the day / perDay), its attempts seconds before, so all
 * lie within the day, and into the day's partitions of the log, the attempts and the messages,
 * made here if missing (migrations 0020 and 0032).
 */
export interface DayInput {
  day: Date;
  perDay: number;
  workspaceId: string;
  otherId: string;
  endpointIds: string[];
}

export async function seedDeliveryLogDay(sql: Sql, r: DayInput): Promise<void> {
  const day = r.day;
  const [a, b, c, o] = r.endpointIds as [string, string, string, string];
  const shared = Math.round(r.perDay * 0.44);
  const [small, other] = [Math.round(r.perDay * 0.02), r.perDay - 2 * shared - Math.round(r.perDay * 0.02)];
  const step = (DAY - 10_000) / Math.max(shared + small + other, 1);
  await sql.begin(async (tx) => {
    const utcDay = day.toISOString().slice(0, 10);
    await tx`select webhook_log_partitions_ensure(${utcDay}::date, ${utcDay}::date), webhook_message_partitions_ensure(${utcDay}::date, ${utcDay}::date)`;
    await tx`
      create temporary table day_messages on commit drop as
      select gen_random_uuid() as id, i,
             case when i < ${shared + small} then ${r.workspaceId}::uuid else ${r.otherId}::uuid end as workspace_id,
             case when i < ${shared} then array[${a}::uuid, ${b}::uuid] when i < ${shared + small} then array[${c}::uuid] else array[${o}::uuid] end as endpoints,
             (${[...SEED_TYPES]}::text[])[1 + i % 6] as type,
             md5(${day.toISOString()} || ':' || (i / 4)::text)::uuid as offer_id,
             ${day}::timestamptz + make_interval(secs => 10 + i * ${step / 1000}::float8) as finished_at,
             case when i % 100 < 6 then 'failed' when i % 100 < 8 then 'cancelled' else 'succeeded' end as status
        from generate_series(0, ${shared + small + other - 1}) as i`;
    await tx`
      insert into webhook_messages (id, workspace_id, type, body, offer_id, created_at)
      select id, workspace_id, type, '{"seed":true}', offer_id, finished_at - interval '9 seconds' from day_messages`;
    await tx`
      create temporary table day_deliveries on commit drop as
      select gen_random_uuid() as id, m.id as message_id, e.id as endpoint_id, m.workspace_id, m.type, m.status, m.finished_at
        from day_messages m cross join unnest(m.endpoints) as e(id)`;
    await tx`
      insert into webhook_delivery_log
        (id, message_id, endpoint_id, workspace_id, event_type, is_test, status, attempt_count, max_attempts, failure_reason, created_at, updated_at, finished_at)
      select id, message_id, endpoint_id, workspace_id, type, false, status,
             case status when 'succeeded' then 1 when 'failed' then 8 else 0 end, 8,
             case when status = 'cancelled' then 'endpoint_paused' end, finished_at - interval '9 seconds', finished_at, finished_at
        from day_deliveries`;
    await tx`
      insert into webhook_attempts (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
      select d.id, d.endpoint_id, k, d.finished_at - make_interval(secs => 9 - k), d.status = 'succeeded', case when d.status = 'succeeded' then 200 else 500 end, 40
        from day_deliveries d cross join generate_series(1, case d.status when 'succeeded' then 1 when 'failed' then 8 else 0 end) as k`;
  });
  await sql`analyze webhook_delivery_log, webhook_attempts, webhook_messages`;
}
