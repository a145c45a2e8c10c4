import { advisoryLockKey } from '../../db/advisory-lock.js';
import type { Tx } from '../../db/connect.js';

/**
 * Locks a workspace's endpoint counts (and, when given, a creating account's) until the
 * transaction ends. What it guards, console-api.yaml "Limits": two additions at once cannot both
 * pass the 5-per-workspace or the 20-workspaces-per-account check, and a removal counts a stable
 * "last endpoint" of its workspace.
 */
export async function lockEndpointCounts(tx: Tx, input: { workspaceId: string; accountId?: string }): Promise<void> {
  await tx`select pg_advisory_xact_lock(${advisoryLockKey(`webhook-endpoints:workspace:${input.workspaceId}`)}::bigint)`;
  if (input.accountId) {
    await tx`select pg_advisory_xact_lock(${advisoryLockKey(`webhook-endpoints:account:${input.accountId}`)}::bigint)`;
  }
}
