import { HOUR } from '../clock.js';
import type { Queryable } from '../db/connect.js';

/**
 * The delivery-statistics part of a console Endpoint (`paused_reason`, `stats`; console-api.yaml
 * "Endpoint"). The delivery-log work (branch console-log) owns these queries and their speed;
 * this is the plain, correct version the endpoint handlers call until it replaces this module.
 */
export interface EndpointDetails {
  paused_reason: 'failures' | 'manual' | null;
  stats: {
    success_rate_24h: number | null;
    attempts_24h: number;
    hourly: { hour: string; attempts: number; succeeded: number }[];
  };
}

export const STATS_HOURS = 24;

export async function endpointDetails(
  sql: Queryable,
  endpoints: readonly { id: string; state: 'active' | 'paused' }[],
  now: Date,
): Promise<Map<string, EndpointDetails>> {
  const currentHour = Math.floor(now.getTime() / HOUR) * HOUR;
  const from = new Date(currentHour - (STATS_HOURS - 1) * HOUR);
  const ids = endpoints.map((e) => e.id);
  const rows =
    ids.length === 0
      ? []
      : await sql<{ endpoint_id: string; hour: Date; attempts: number; succeeded: number }[]>`
          select d.endpoint_id, date_trunc('hour', a.attempted_at) as hour,
                 count(*)::int as attempts, count(*) filter (where a.succeeded)::int as succeeded
            from webhook_deliveries d
            join webhook_attempts a on a.delivery_id = d.id
           where d.endpoint_id = any (${ids}::uuid[]) and a.attempted_at >= ${from} and a.attempted_at <= ${now}
           group by 1, 2`;
  const details = new Map<string, EndpointDetails>();
  for (const endpoint of endpoints) {
    const hourly = Array.from({ length: STATS_HOURS }, (_, i) => {
      const hour = new Date(from.getTime() + i * HOUR);
      const row = rows.find((r) => r.endpoint_id === endpoint.id && r.hour.getTime() === hour.getTime());
      return { hour: hour.toISOString(), attempts: row?.attempts ?? 0, succeeded: row?.succeeded ?? 0 };
    });
    const attempts = hourly.reduce((sum, h) => sum + h.attempts, 0);
    const succeeded = hourly.reduce((sum, h) => sum + h.succeeded, 0);
    details.set(endpoint.id, {
      // The service pauses an endpoint only after 5 final failures in a row (SPEC.md "Delivery,
      // retries, pause"); there is no manual pause today.
      paused_reason: endpoint.state === 'paused' ? 'failures' : null,
      stats: { success_rate_24h: attempts === 0 ? null : succeeded / attempts, attempts_24h: attempts, hourly },
    });
  }
  return details;
}
