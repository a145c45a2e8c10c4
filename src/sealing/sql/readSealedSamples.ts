import type { Queryable } from '../../db/connect.js';

export interface SealedSample {
  /** The sealed value's format byte and key id (format 2), or just the first byte of anything else. */
  family: Buffer;
  endpoints: number;
  sample_id: string;
  sample_sealed: Buffer;
}

/**
 * One sealed secret of each key (and one of any value not in format 2), with how many
 * endpoints share it: enough for the start check to try every key in use without opening every
 * row. Removed endpoints receive nothing, so their secrets are not checked.
 */
export async function readSealedSamples(sql: Queryable): Promise<SealedSample[]> {
  return sql<SealedSample[]>`
    with families as (
      select id, secret_sealed,
             case when get_byte(secret_sealed, 0) = 2 then substring(secret_sealed from 1 for 5)
                  else substring(secret_sealed from 1 for 1) end as family
        from webhook_endpoints
       where removed_at is null
    )
    select family, count(*)::int as endpoints,
           (array_agg(id order by id))[1]::text as sample_id,
           (array_agg(secret_sealed order by id))[1] as sample_sealed
      from families
     group by family
     order by family`;
}
