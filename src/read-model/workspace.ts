import type { Queryable } from '../db/connect.js';
import { readInScope, scopedRead, type Scope, type Scoped } from './scope.js';
import type { Workspace } from './types.js';

const workspaceRow = scopedRead({
  key: () => '',
  read: (sql, _shape: null, _values: { now: Date }, workspace) =>
    sql`select w.id, w.name, w.timezone, w.currency from workspaces w where w.id = ${workspace}`,
  order: (sql) => sql`r.id`,
});

/** The scope's workspace (GET /workspace); null value when it is gone. */
export async function readWorkspace(sql: Queryable, scope: Scope, now: Date): Promise<Scoped<Workspace | null>> {
  const found = await readInScope<Workspace, null, { now: Date }>(sql, scope, workspaceRow, null, { now });
  const row = found?.value[0];
  return found && { workspaceId: found.workspaceId, value: row ? { id: row.id, name: row.name, timezone: row.timezone, currency: row.currency } : null };
}
