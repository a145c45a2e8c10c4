import type { Queryable } from '../../db/connect.js';

/**
 * A stopping worker's claims it did not finish (an outcome that could not be recorded): pending
 * again, due as they were, so another worker takes them now rather than after their lease. Found
 * through webhook_in_flight (migration 0036): no index of the queue reads its lease.
 */
export async function handBackClaims(sql: Queryable, input: { workerId: number; now: Date }): Promise<number> {
  const rows = await sql`
    update webhook_queue
       set status = 'pending', lease_token = null, lease_until = null, lease_worker = null,
           updated_at = ${input.now}
     where id in (select f.delivery_id from webhook_in_flight f where f.lease_worker = ${input.workerId})
       and status = 'sending' and lease_worker = ${input.workerId}
    returning id`;
  return rows.length;
}
