import type { Queryable } from '../../db/connect.js';
import type { HealthState } from '../engine/health.js';

export interface HealthFacts {
  id: string;
  workspace_id: string;
  state: 'active' | 'paused';
  health_state: HealthState;
  failing_since: Date | null;
  last_success_at: Date | null;
  /** First failed attempt after the last success, and how many failed since that success. */
  first_failure_at: Date | null;
  failures: number;
}

/**
 * The health facts of one endpoint (`endpointId`), or of every endpoint the health job must look
 * at: those not healthy (they may recover) and active ones with a failed attempt since
 * `failedSince` (they may be starting to fail). Each endpoint's attempts are read backwards on
 * webhook_attempts_endpoint_time_idx, from the newest to its last success.
 *
 * Attempts of test pings are left out: a test is allowed while paused to check a repaired
 * receiver, and its answer says nothing about deliveries (a ping that succeeds on a paused
 * endpoint is no recovery). Only pings are tests (management/endpoints.ts testEndpoint), so the
 * endpoint's test deliveries are found by event type on the delivery indexes, once per endpoint.
 */
export async function readHealthFacts(
  sql: Queryable,
  input: { failedSince: Date; endpointId?: string },
): Promise<HealthFacts[]> {
  const which = input.endpointId
    ? sql`e.id = ${input.endpointId}::uuid`
    : sql`(e.health_state <> 'healthy'
           or (e.state = 'active' and exists (
                 select 1 from webhook_attempts a
                  where a.endpoint_id = e.id and a.attempted_at >= ${input.failedSince} and not a.succeeded)))`;
  return sql<HealthFacts[]>`
    select e.id, e.workspace_id, e.state, e.health_state, e.failing_since, s.last_success_at,
           f.first_failure_at, f.failures
      from webhook_endpoints e
     cross join lateral (
       select array(select d.id from webhook_deliveries d
                     where d.endpoint_id = e.id and d.event_type = 'ping' and d.is_test) as ids) t
     cross join lateral (
       select max(a.attempted_at) as last_success_at
         from webhook_attempts a
        where a.endpoint_id = e.id and a.succeeded and a.delivery_id <> all (t.ids)) s
     cross join lateral (
       select min(a.attempted_at) as first_failure_at, count(*)::int as failures
         from webhook_attempts a
        where a.endpoint_id = e.id and not a.succeeded and a.delivery_id <> all (t.ids)
          and a.attempted_at > coalesce(s.last_success_at, '-infinity'::timestamptz)) f
     where e.removed_at is null and ${which}
     order by e.id`;
}
