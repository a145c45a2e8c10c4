import type { Queryable } from '../../db/connect.js';

export interface EndpointHourRow {
  endpoint_id: string;
  paused_reason: 'failures' | 'manual' | null;
  health_state: 'healthy' | 'failing' | 'failures_3' | 'paused';
  failing_since: Date | null;
  hour: Date;
  attempts: number;
  succeeded: number;
}

/**
 * Attempts and successes per hour for several endpoints at once, one row per endpoint and hour
 * from `from` for `hours` hours (empty hours included, with zeros). Buckets start at `from`
 * (date_bin), not at the session's time zone's hours. Each endpoint's attempts are one range of
 * webhook_attempts_endpoint_time_idx, read from the index alone (it includes `succeeded`).
 */
export async function readEndpointStats(
  sql: Queryable,
  input: { endpointIds: string[]; from: Date; hours: number },
): Promise<EndpointHourRow[]> {
  if (input.endpointIds.length === 0) return [];
  return sql<EndpointHourRow[]>`
    with counted as (
      select a.endpoint_id, date_bin('1 hour', a.attempted_at, ${input.from}::timestamptz) as hour,
             count(*)::int as attempts, count(*) filter (where a.succeeded)::int as succeeded
        from webhook_attempts a
       where a.endpoint_id = any (${input.endpointIds}::uuid[])
         and a.attempted_at >= ${input.from}
         and a.attempted_at < ${input.from}::timestamptz + make_interval(hours => ${input.hours})
       group by 1, 2
    )
    select e.id as endpoint_id, e.paused_reason, e.health_state, e.failing_since, h.hour,
           coalesce(c.attempts, 0) as attempts, coalesce(c.succeeded, 0) as succeeded
      from webhook_endpoints e
     cross join generate_series(${input.from}::timestamptz,
                                ${input.from}::timestamptz + make_interval(hours => ${input.hours} - 1),
                                interval '1 hour') as h(hour)
      left join counted c on c.endpoint_id = e.id and c.hour = h.hour
     where e.id = any (${input.endpointIds}::uuid[])
     order by e.id, h.hour`;
}
