import { MEMBERSHIP_ROLES, requireRole, type ActorId } from '../../domain/accounts.js';
import { notFound } from '../../domain/errors.js';
import { isUuid } from '../../domain/validate.js';
import { requireEndpoint } from './endpoints.js';
import { readDelivery } from '../sql/readDelivery.js';

/**
 * Reading a workspace's endpoints and delivery log (console-api.yaml "Who may do what": members
 * read): any member, or the operator; anyone else gets not_found with the words of an unknown ID
 * (console-api.yaml "Who may do what").
 */

export async function requireWorkspaceReader(sql: Parameters<typeof requireRole>[0], workspaceId: string, actorId: ActorId): Promise<void> {
  await requireRole(sql, { workspaceId, accountId: actorId, roles: MEMBERSHIP_ROLES });
}

export async function requireEndpointReader(
  sql: Parameters<typeof requireEndpoint>[0],
  endpointId: string,
  actorId: ActorId,
): Promise<{ workspaceId: string }> {
  const endpoint = await requireEndpoint(sql, endpointId);
  await requireRole(sql, { workspaceId: endpoint.workspace_id, accountId: actorId, roles: MEMBERSHIP_ROLES, target: `endpoint ${endpointId}` });
  return { workspaceId: endpoint.workspace_id };
}

export async function requireDeliveryReader(
  sql: Parameters<typeof requireEndpoint>[0],
  deliveryId: string,
  actorId: ActorId,
): Promise<{ workspaceId: string }> {
  const row = isUuid(deliveryId) ? await readDelivery(sql, { deliveryId }) : null;
  if (!row) throw notFound(`delivery ${deliveryId}`);
  await requireRole(sql, { workspaceId: row.workspace_id, accountId: actorId, roles: MEMBERSHIP_ROLES, target: `delivery ${deliveryId}` });
  return { workspaceId: row.workspace_id };
}
