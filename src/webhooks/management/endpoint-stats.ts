import { HOUR } from '../../clock.js';
import type { Queryable } from '../../db/connect.js';
import { readEndpointStats } from '../sql/readEndpointStats.js';

/**
 * What the console shows beside each endpoint: why it is paused, its health and since when it
 * fails, and its attempts and success
 * rate over the last 24 hours, hour by hour (24 buckets, oldest first, the current hour last and
 * still filling). One statement for all endpoints of a page.
 */
export const STATS_HOURS = 24;

export interface EndpointStats {
  /** 'failures': paused after 5 final failures in a row (openapi.yaml "Webhook delivery and retries"). */
  paused_reason: 'failures' | 'manual' | null;
  /** The health its owners and admins were told (engine/health.ts), and since when it fails. */
  health: 'healthy' | 'failing' | 'failures_3' | 'paused';
  failing_since: string | null;
  stats: {
    /** Succeeded attempts / attempts in the 24 buckets; null without attempts. */
    success_rate_24h: number | null;
    attempts_24h: number;
    hourly: { hour: string; attempts: number; succeeded: number }[];
  };
}

export async function endpointStats(sql: Queryable, input: { endpointIds: string[]; now: Date }): Promise<Map<string, EndpointStats>> {
  const from = new Date(Math.floor(input.now.getTime() / HOUR) * HOUR - (STATS_HOURS - 1) * HOUR);
  const rows = await readEndpointStats(sql, { endpointIds: input.endpointIds, from, hours: STATS_HOURS });
  const result = new Map<string, EndpointStats>();
  for (const row of rows) {
    let entry = result.get(row.endpoint_id);
    if (!entry) {
      entry = {
        paused_reason: row.paused_reason,
        health: row.health_state,
        failing_since: row.failing_since?.toISOString() ?? null,
        stats: { success_rate_24h: null, attempts_24h: 0, hourly: [] },
      };
      result.set(row.endpoint_id, entry);
    }
    entry.stats.hourly.push({ hour: row.hour.toISOString(), attempts: row.attempts, succeeded: row.succeeded });
  }
  for (const entry of result.values()) {
    const attempts = entry.stats.hourly.reduce((sum, h) => sum + h.attempts, 0);
    const succeeded = entry.stats.hourly.reduce((sum, h) => sum + h.succeeded, 0);
    entry.stats.attempts_24h = attempts;
    entry.stats.success_rate_24h = attempts === 0 ? null : succeeded / attempts;
  }
  return result;
}
