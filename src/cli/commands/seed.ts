import { randomInt } from 'node:crypto';
import type { Command } from 'commander';
import { seedOffers } from '../../seed/seed.js';
import { parseWholeNumber, type CliContext } from '../context.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('seed')
    .description('add realistic offers with full lifecycles and timelines to a workspace (bulk SQL)')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--offers <n>', 'number of offers', parseWholeNumber)
    .option('--random-seed <s>', 'seed of the generator (0..2147483647); the same seed gives the same data', parseWholeNumber)
    .option('--parallel <n>', 'chunks seeded at once', parseWholeNumber)
    .option('--json', 'print one JSON object')
    .action((options: { workspace: string; offers: number; randomSeed?: number; parallel?: number; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) => {
          const randomSeed = options.randomSeed ?? randomInt(2_147_483_647);
          const started = performance.now();
          const elapsed = () => ((performance.now() - started) / 1000).toFixed(1);
          const result = await seedOffers(sql, {
            workspaceId: options.workspace,
            offers: options.offers,
            randomSeed,
            now: clock.now(),
            parallel: options.parallel,
            onProgress: (p) => process.stderr.write(`seeded ${p.offers}/${p.total} offers, ${p.events} timeline entries, ${elapsed()} s\n`),
          });
          return {
            workspace_id: options.workspace,
            offers: result.offers,
            events: result.events,
            random_seed: randomSeed,
            elapsed_ms: Math.round(performance.now() - started),
          };
        },
        (r) =>
          `seeded ${r.offers} offers with ${r.events} timeline entries into workspace ${r.workspace_id} ` +
          `in ${(r.elapsed_ms / 1000).toFixed(1)} s (random seed ${r.random_seed})`,
      ),
    );
}
