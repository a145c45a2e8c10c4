import type { Tx } from '../../db/connect.js';

export interface OutboxRow {
  id: string;
  workspace_id: string;
  type: string;
  offer_id: string;
  offer_sequence: number;
}

/**
 * The oldest outbox rows that are due (offer.expired rows become due two minutes after
 * detection), locked until the fan-out transaction deletes them.
 */
export async function takeDueOutbox(tx: Tx, now: Date, limit: number): Promise<OutboxRow[]> {
  return tx<OutboxRow[]>`
    select id, workspace_id, type, offer_id, offer_sequence
      from webhook_outbox
     where available_at <= ${now}
     order by available_at, created_at, offer_sequence, id
     limit ${limit}
       for update skip locked`;
}
