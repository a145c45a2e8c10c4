import type { Queryable } from '../../db/connect.js';

export interface NoticeContext {
  url: string;
  workspace_name: string;
  /** Owners and admins of the workspace who have not switched endpoint notices off. */
  recipients: string[];
  /** The endpoint's newest failed attempts, newest first. */
  last_errors: { attempted_at: Date; status_code: number | null; error: string | null }[];
}

/** What an endpoint health mail says and to whom, in one statement. */
export async function readNoticeContext(sql: Queryable, input: { endpointId: string; lastErrors: number }): Promise<NoticeContext | null> {
  const [row] = await sql<{ url: string; workspace_name: string; recipients: string[]; last_errors: { attempted_at: string; status_code: number | null; error: string | null }[] }[]>`
    select e.url, w.name as workspace_name,
           array(select a.email
                   from memberships m join accounts a on a.id = m.account_id
                  where m.workspace_id = e.workspace_id and m.role in ('owner', 'admin') and m.endpoint_notices
                  order by a.email) as recipients,
           coalesce((select json_agg(t order by t.attempted_at desc)
                       from (select at.attempted_at, at.status_code, at.error
                               from webhook_attempts at
                              where at.endpoint_id = e.id and not at.succeeded
                              order by at.attempted_at desc
                              limit ${input.lastErrors}) t), '[]'::json) as last_errors
      from webhook_endpoints e join workspaces w on w.id = e.workspace_id
     where e.id = ${input.endpointId}::uuid`;
  if (!row) return null;
  return { ...row, last_errors: row.last_errors.map((e) => ({ ...e, attempted_at: new Date(e.attempted_at) })) };
}
