import type { Queryable } from '../../db/connect.js';

/** Outbox rows leave the outbox once turned into messages (or dropped by a limit). */
export async function deleteOutboxRows(sql: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`delete from webhook_outbox where id = any (${ids}::uuid[])`;
}
