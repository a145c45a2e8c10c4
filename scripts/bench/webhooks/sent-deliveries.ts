import type { Sql } from '../../../src/db/connect.js';

/** A delivery of the throughput run that the baseline sender and the queue floor send again. */
export interface SentDelivery {
  message_id: string;
  endpoint_id: string;
  workspace_id: string;
  event_type: string;
  url: string;
  secret_sealed: Buffer;
  body: string;
}

/**
 * The throughput run's deliveries to answering endpoints (the failing ones left out), in the
 * order they were made, `limit` of them: the baseline sender and every shape of the queue floor
 * send exactly these, so their rates compare.
 */
export function sentDeliveries(sql: Sql, limit: number) {
  return sql<SentDelivery[]>`
    select d.message_id, d.endpoint_id, d.workspace_id, d.event_type, e.url, e.secret_sealed, m.body
      from webhook_deliveries d
      join webhook_messages m on m.id = d.message_id
      join webhook_endpoints e on e.id = d.endpoint_id
     where e.removed_at is null and e.url not like '%/fail/%'
     order by d.created_at, d.id
     limit ${limit}`;
}
