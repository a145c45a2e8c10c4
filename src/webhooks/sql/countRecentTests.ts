import type { Queryable } from '../../db/connect.js';

/** Tests (pings) queued for an endpoint since `since`: the sliding window of the test limit. */
export async function countRecentTests(sql: Queryable, input: { endpointId: string; since: Date }): Promise<number> {
  const [row] = await sql<{ tests: number }[]>`
    select count(*)::int as tests
      from webhook_deliveries
     where endpoint_id = ${input.endpointId}::uuid and is_test and created_at > ${input.since}`;
  return row!.tests;
}
