import type { Queryable } from '../db/connect.js';
import type { Workspace } from './types.js';

export async function readWorkspace(sql: Queryable, workspaceId: string): Promise<Workspace | null> {
  const [row] = await sql<Workspace[]>`
    select w.id, w.name, w.timezone, w.currency from workspaces w where w.id = ${workspaceId}::uuid`;
  return row ?? null;
}
