import type { Queryable } from '../../db/connect.js';

/**
 * SPEC.md "Webhook limits": delivery log retention 30 days. Deletes up to `limit` finished
 * deliveries last changed before the cutoff with their attempts (no foreign key ties an attempt
 * to a delivery that moves between webhook_queue and the log), then messages no open or finished
 * delivery refers to any more. Returns the deliveries deleted; the caller repeats while full.
 */
export async function deleteExpiredLog(sql: Queryable, input: { before: Date; limit: number }): Promise<number> {
  const [row] = await sql<{ deleted: number }[]>`
    with old as (
      select id from webhook_delivery_log
       where updated_at < ${input.before}
       order by updated_at
       limit ${input.limit}
    ),
    deleted as (
      delete from webhook_delivery_log d using old where d.id = old.id returning d.id
    ),
    attempts as (
      delete from webhook_attempts a using deleted where a.delivery_id = deleted.id
    )
    select count(*)::int as deleted from deleted`;
  await sql`
    delete from webhook_messages m
     where m.id in (
       select m2.id from webhook_messages m2
        where m2.created_at < ${input.before}
          and not exists (select 1 from webhook_queue q where q.message_id = m2.id)
          and not exists (select 1 from webhook_delivery_log d where d.message_id = m2.id)
        limit ${input.limit})`;
  return row!.deleted;
}
