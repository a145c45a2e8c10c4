import { sendJson } from '../../http/respond.js';
import { listAuditEntries as listAuditRows, type AuditEntryRow } from '../../domain/audit.js';
import { requireReader } from '../access.js';
import { signedIn, type ConsoleHandlerTable, type ConsoleRequest } from '../context.js';
import { pageOf, pageRequest, pathParam } from './paging.js';

/** The workspace's audit log, newest first; any member reads it. */
const LIST = 'audit-log';

function view(row: AuditEntryRow) {
  return {
    id: row.id,
    at: row.at,
    actor: row.actor_id ? { id: row.actor_id, email: row.actor_email, name: row.actor_name } : null,
    actor_label: row.actor_label,
    action: row.action,
    target: row.target_type && row.target_id ? { type: row.target_type, id: row.target_id } : null,
    details: row.details,
    ip: row.ip,
  };
}

async function listAuditEntries(request: ConsoleRequest): Promise<void> {
  const workspaceId = pathParam(request, 'workspaceId');
  await requireReader(request.deps.sql, signedIn(request).account.id, workspaceId);
  const page = pageRequest(request, LIST, workspaceId);
  const rows = await listAuditRows(request.deps.sql, { workspaceId, limit: page.limit + 1, after: page.after });
  sendJson(request.res, 200, pageOf(request, { list: LIST, workspaceId, limit: page.limit, rows, key: (r) => r.created_at_key, view }));
}

export const auditLogHandlers: ConsoleHandlerTable = { listAuditEntries };
