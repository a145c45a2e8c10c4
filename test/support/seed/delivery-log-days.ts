import { DAY } from '../../../src/clock.js';
import type { Sql } from '../../../src/db/connect.js';
import { SEED_TYPES } from './delivery-log.js';

/**
 * One UTC day of a busy delivery log, set-based (the benchmark's `--log-rows` log): `perDay` finished
 * deliveries and their attempts in the day's partitions of the log and of the attempts, with their
 * messages, in one transaction (a day is all there or not at all). Of them 88 % go to the first two
 * endpoints, which share their messages, 2 % to the third, both of `workspaceId`, and 10 % to the
 * fourth, of `otherId`; 6 % failed (8 attempts), 2 % cancelled (none), the rest succeeded (one); types
 * cycle through six, four events per offer. The messages are spread over the day in a fixed mixed
 * order (message i at slot i x stride mod n, the stride coprime with n), so the workspaces and
 * endpoints take turns as traffic does: laid out in blocks, each day's rows of a workspace would be
 * in disk order and the planner would rate the workspace's list index above the endpoint's for an
 * endpoint filter (test/webhooks/engine/log-seed-layout.test.ts). Slot k finishes at day + 10 s +
 * k x (the day / n), its attempts seconds before, so all lie within the day.
 *
 * The day's partitions are made here as the product makes them (webhook_log_partition_ensure, migration
 * 0020: same names, columns, keys and indexes), but loaded before their indexes are built and then
 * attached: sorting each index once is many times cheaper than keeping nine indexes row by row. The
 * caller seeds only a day the log has no rows of, so partitions of it made empty by the job are made
 * again. The messages go into their day's partition of webhook_messages (migration 0032), made here
 * if missing. Nothing is analyzed here: ANALYZE of a parent reads every partition, so the caller runs it once.
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
  const n = Math.max(shared + small + other, 1);
  const step = (DAY - 10_000) / n;
  const stride = coprimeStride(n);
  // The day's range, as ISO timestamps, and its date, which names its partitions.
  const [from, until] = [day.toISOString(), new Date(day.getTime() + DAY).toISOString()];
  const utcDay = from.slice(0, 10);
  const suffix = `_p${utcDay.replaceAll('-', '')}`;
  const [log, attempts] = ['webhook_delivery_log', 'webhook_attempts'].map((parent) => parent + suffix) as [string, string];
  await sql.begin(async (tx) => {
    await tx`set local synchronous_commit = off`;
    await tx`select webhook_message_partitions_ensure(${utcDay}::date, ${utcDay}::date)`;
    await tx`set local maintenance_work_mem = '256MB'`;
    // The messages' workspace key checked row by row is most of their insert; the seed's workspaces exist.
    await tx`select set_config('session_replication_role', 'replica', true) where (select rolsuper from pg_roles where rolname = current_user)`;
    for (const [parent, part] of [['webhook_delivery_log', log], ['webhook_attempts', attempts]]) {
      await tx`drop table if exists ${tx(part!)}`;
      await tx`create table ${tx(part!)} (like ${tx(parent!)} including defaults including constraints)`;
    }
    await tx`
      create temporary table day_messages on commit drop as
      select gen_random_uuid() as id, i,
             case when i < ${shared + small} then ${r.workspaceId}::uuid else ${r.otherId}::uuid end as workspace_id,
             case when i < ${shared} then array[${a}::uuid, ${b}::uuid] when i < ${shared + small} then array[${c}::uuid] else array[${o}::uuid] end as endpoints,
             (${[...SEED_TYPES]}::text[])[1 + i % 6] as type,
             md5(${from} || ':' || (i / 4)::text)::uuid as offer_id,
             ${day}::timestamptz + make_interval(secs => 10 + (i::bigint * ${stride} % ${n}) * ${step / 1000}::float8) as finished_at,
             case when i % 100 < 6 then 'failed' when i % 100 < 8 then 'cancelled' else 'succeeded' end as status
        from generate_series(0, ${shared + small + other - 1}) as i`;
    await tx`
      insert into webhook_messages (id, workspace_id, type, body, offer_id, created_at)
      select id, workspace_id, type, '{"seed":true}', offer_id, finished_at - interval '9 seconds' from day_messages order by finished_at`;
    // In finished_at order, with the offer and the last attempt's status (below), as the worker writes them.
    await tx`
      insert into ${tx(log)}
        (id, message_id, endpoint_id, workspace_id, event_type, offer_id, is_test, status, attempt_count, max_attempts, failure_reason,
         created_at, updated_at, finished_at, last_response_status)
      select gen_random_uuid(), m.id, e.id, m.workspace_id, m.type, m.offer_id, false, m.status,
             case m.status when 'succeeded' then 1 when 'failed' then 8 else 0 end, 8,
             case when m.status = 'cancelled' then 'endpoint_paused' end, m.finished_at - interval '9 seconds', m.finished_at, m.finished_at,
             case m.status when 'succeeded' then 200 when 'failed' then 500 end
        from day_messages m cross join unnest(m.endpoints) with ordinality as e(id, n)
       order by m.finished_at, e.n`;
    await tx`
      insert into ${tx(attempts)} (delivery_id, endpoint_id, attempt, attempted_at, succeeded, status_code, duration_ms)
      select d.id, d.endpoint_id, k, d.finished_at - make_interval(secs => 9 - k), d.status = 'succeeded', case when d.status = 'succeeded' then 200 else 500 end, 40
        from ${tx(log)} d cross join generate_series(1, d.attempt_count) as k
       order by 4`;
    for (const [parent, part, key] of [['webhook_delivery_log', log, 'finished_at'], ['webhook_attempts', attempts, 'attempted_at']] as const) {
      await tx`select webhook_log_partition_keys(${parent}, ${part}), webhook_log_partition_indexes(${parent}, ${part})`;
      // The range as a CHECK first, so ATTACH proves it without reading the partition again.
      await tx.unsafe(`alter table ${part} add constraint ${part}_range check (${key} >= '${from}' and ${key} < '${until}')`);
      await tx.unsafe(`alter table ${parent} attach partition ${part} for values from ('${from}') to ('${until}')`);
      await tx.unsafe(`alter table ${part} drop constraint ${part}_range`);
    }
  });
}

/** A stride near n x 0.618 that shares no factor with n: i x stride mod n visits every slot once, well mixed. */
function coprimeStride(n: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let stride = Math.max(1, Math.round(n * 0.6180339887));
  while (gcd(stride, n) !== 1) stride += 1;
  return stride;
}
