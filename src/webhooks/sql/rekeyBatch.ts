import type { Queryable } from '../../db/connect.js';

export interface SealedRow {
  id: string;
  secret_sealed: Buffer;
}

/**
 * The next endpoints after `afterId` whose secret is not sealed under the current key (format 2
 * with its key id, `currentPrefix`), locked until the batch commits so a secret generated at the
 * same time is not overwritten with the old one.
 */
export async function lockSecretsToRekey(
  sql: Queryable,
  input: { currentPrefix: Buffer; afterId: string; limit: number },
): Promise<SealedRow[]> {
  return sql<SealedRow[]>`
    select id::text, secret_sealed
      from webhook_endpoints
     where removed_at is null
       and substring(secret_sealed from 1 for ${input.currentPrefix.length}) <> ${input.currentPrefix}
       and id > ${input.afterId}::uuid
     order by id
     limit ${input.limit}
       for update`;
}

export async function countSecretsToRekey(sql: Queryable, input: { currentPrefix: Buffer }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n
      from webhook_endpoints
     where removed_at is null
       and substring(secret_sealed from 1 for ${input.currentPrefix.length}) <> ${input.currentPrefix}`;
  return row!.n;
}

export async function storeResealed(sql: Queryable, input: { id: string; secretSealed: Buffer }): Promise<void> {
  await sql`update webhook_endpoints set secret_sealed = ${input.secretSealed} where id = ${input.id}::uuid`;
}
