import type { Queryable } from '../../db/connect.js';

/**
 * Claims the next run of a periodic job for the whole worker fleet: moves next_run_at one period
 * ahead only if it has come, in one statement, so of several workers exactly one runs the job per
 * period. A job never seen before is due at once.
 */
export async function claimJobRun(
  sql: Queryable,
  input: { name: string; now: Date; intervalMs: number },
): Promise<boolean> {
  const next = new Date(input.now.getTime() + input.intervalMs);
  const rows = await sql`
    insert into worker_jobs as j (name, next_run_at, last_run_at)
    values (${input.name}, ${next}, ${input.now})
    on conflict (name) do update
       set next_run_at = excluded.next_run_at, last_run_at = excluded.last_run_at
     where j.next_run_at <= ${input.now}
    returning name`;
  return rows.length > 0;
}
