import type { Queryable } from '../../db/connect.js';
import type { HealthNotice } from '../engine/health.js';

/**
 * Takes back the endpoint's notices of `kinds` that no worker has sent or is sending (pending and
 * not under a live lease): the rise being written tells all they would. One being sent stays, and
 * the new notice waits for it (claimDueMails.ts). Returns how many mails were taken back.
 */
export async function supersedeNotices(sql: Queryable, input: { endpointId: string; kinds: HealthNotice[]; now: Date }): Promise<number> {
  if (input.kinds.length === 0) return 0;
  const rows = await sql`
    delete from mail_outbox
     where endpoint_id = ${input.endpointId}::uuid and status = 'pending' and kind in ${sql(input.kinds)}
       and (lease_until is null or lease_until <= ${input.now})
    returning id`;
  return rows.length;
}
