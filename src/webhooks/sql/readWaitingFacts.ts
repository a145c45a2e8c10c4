import type { Queryable } from '../../db/connect.js';

export interface WaitingFacts {
  /** Starts counted in the workspace's current start-rate window; 0 when no window is running. */
  windowStarts: number;
  /** Attempts in flight fleet-wide per endpoint (webhook_in_flight, lease not passed). */
  inFlight: Map<string, number>;
}

/**
 * What the claim (claimDeliveries.ts) looks at when it passes over a due delivery: the
 * workspace's start-rate window and each endpoint's attempts in flight, read exactly as the
 * claim reads them (a window that began at or before `windowEndedBefore` has ended; an attempt
 * whose lease has passed is no longer in flight).
 */
export async function readWaitingFacts(
  sql: Queryable,
  input: { workspaceId: string; endpointIds: string[]; now: Date; windowEndedBefore: Date },
): Promise<WaitingFacts> {
  const [window] = await sql<{ starts: number }[]>`
    select case when s.window_started_at > ${input.windowEndedBefore} then s.window_starts else 0 end as starts
      from webhook_workspace_state s
     where s.workspace_id = ${input.workspaceId}::uuid`;
  const counts =
    input.endpointIds.length === 0
      ? []
      : await sql<{ endpoint_id: string; n: number }[]>`
          select e.id as endpoint_id,
                 (select count(*) from webhook_in_flight f
                   where f.endpoint_id = e.id and f.lease_until > ${input.now})::int as n
            from unnest(${input.endpointIds}::uuid[]) as e(id)`;
  return { windowStarts: window?.starts ?? 0, inFlight: new Map(counts.map((row) => [row.endpoint_id, row.n])) };
}
