import { MANAGER_ROLES, requireRole } from '../domain/accounts.js';
import { writeAudit, type AuditSource } from '../domain/audit.js';
import { requireEndpoint, showEndpoint, type EndpointView, type ManagementDeps } from './management.js';
import { pauseEndpoint as pauseEndpointRow } from './sql/pauseEndpoint.js';

/**
 * Paused by hand exactly as after 5 final failures (SPEC.md "Delivery, retries, pause"): open
 * deliveries are cancelled, events of the paused time are never delivered, `resume` ends it.
 * Pausing a paused endpoint changes nothing. Owners and admins, or the operator (actor null).
 */
export async function pauseEndpoint(
  deps: ManagementDeps,
  input: { endpointId: string; actorId: string | null; via?: AuditSource },
): Promise<EndpointView & { cancelled_deliveries: number }> {
  const endpoint = await requireEndpoint(deps.sql, input.endpointId);
  await requireRole(deps.sql, {
    workspaceId: endpoint.workspace_id,
    accountId: input.actorId,
    roles: MANAGER_ROLES,
    target: `endpoint ${input.endpointId}`,
  });
  const cancelled = await deps.sql.begin(async (tx) => {
    const now = deps.clock.now();
    const result = await pauseEndpointRow(tx, { endpointId: endpoint.id, now });
    if (!result.paused) return 0;
    await writeAudit(tx, {
      workspaceId: endpoint.workspace_id,
      actorId: input.actorId,
      via: input.via,
      action: 'endpoint.paused',
      target: { type: 'endpoint', id: endpoint.id },
      details: { cancelled_deliveries: result.cancelled },
      at: now,
    });
    return result.cancelled;
  });
  return { ...(await showEndpoint(deps, { endpointId: endpoint.id })), cancelled_deliveries: cancelled };
}
