import type { Queryable } from '../../db/connect.js';

/** The new secret replaces the old one at once: the next attempt is signed with it. */
export async function updateEndpointSecret(
  sql: Queryable,
  input: { endpointId: string; secretSealed: Buffer; now: Date },
): Promise<boolean> {
  const rows = await sql`
    update webhook_endpoints
       set secret_sealed = ${input.secretSealed}, updated_at = ${input.now}
     where id = ${input.endpointId}::uuid and removed_at is null
    returning id`;
  return rows.length > 0;
}
