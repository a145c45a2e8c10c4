import type { Tx } from '../../db/connect.js';

/**
 * Locks the endpoint row before any delivery row of the completing attempt. Lock order is always
 * endpoint, then deliveries (as in pause and remove, which update an endpoint and then all its open
 * deliveries); taking the delivery first would deadlock against a pause of the same endpoint.
 */
export async function lockEndpointForOutcome(tx: Tx, input: { endpointId: string }): Promise<void> {
  await tx`select 1 from webhook_endpoints where id = ${input.endpointId}::uuid for no key update`;
}
