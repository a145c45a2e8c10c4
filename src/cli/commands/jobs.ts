import type { Command } from 'commander';
import { expireDueOffers } from '../../domain/expiry.js';
import { CliError, type CliContext } from '../context.js';

/** `offerdesk jobs run <job>`: a background job once, now (the worker runs them on their own). */
const JOBS = ['expire-offers'] as const;

export function register(program: Command, ctx: CliContext): void {
  const jobs = program.command('jobs').description('background jobs');
  jobs
    .command('run <job>')
    .description(`run a job once, now: ${JOBS.join(', ')}`)
    .option('--json', 'print the result as JSON')
    .action((job: string, options: { json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) => {
          if (job !== 'expire-offers') throw new CliError(`unknown job "${job}"; jobs: ${JOBS.join(', ')}`);
          // Safe beside running workers: offers are taken with skip locked, each expires once.
          return { job, expired: await expireDueOffers(sql, clock) };
        },
        (r) => `${r.job}: ${r.expired} offers expired`,
      ),
    );
}
