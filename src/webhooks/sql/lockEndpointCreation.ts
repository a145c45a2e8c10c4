import { createHash } from 'node:crypto';
import type { Tx } from '../../db/connect.js';

const NAMESPACE = createHash('sha256').update('offerdesk:webhook-endpoints').digest().readInt32BE(0);

/**
 * Serialises endpoint changes per workspace and per creating account until the transaction
 * ends, so two additions at once cannot both pass the 5-per-workspace or the 20-workspaces-per-
 * account check, and a removal sees a stable "last endpoint".
 */
export async function lockEndpointCreation(tx: Tx, input: { workspaceId: string; accountId?: string }): Promise<void> {
  await tx`select pg_advisory_xact_lock(${NAMESPACE}, hashtext(${input.workspaceId}))`;
  if (input.accountId) await tx`select pg_advisory_xact_lock(${NAMESPACE}, hashtext(${input.accountId}))`;
}
