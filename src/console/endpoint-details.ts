import type { Queryable } from '../db/connect.js';
import { endpointStats, STATS_HOURS, type EndpointStats } from '../webhooks/management/endpoint-stats.js';

/**
 * The delivery-statistics part of a console Endpoint (`paused_reason`, `stats`; console-api.yaml
 * "Endpoint"), from the webhook engine's statistics (src/webhooks/management/endpoint-stats.ts): one
 * statement for all endpoints asked for.
 */
export type EndpointDetails = EndpointStats;
export { STATS_HOURS };

export async function endpointDetails(
  sql: Queryable,
  endpoints: readonly { id: string; state: 'active' | 'paused' }[],
  now: Date,
): Promise<Map<string, EndpointDetails>> {
  return endpointStats(sql, { endpointIds: endpoints.map((e) => e.id), now });
}
