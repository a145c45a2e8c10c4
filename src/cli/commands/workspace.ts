import type { Command } from 'commander';
import { createWorkspace } from '../../domain/accounts.js';
import type { CliContext } from '../context.js';

export function register(program: Command, ctx: CliContext): void {
  const workspace = program.command('workspace').description('workspaces: the unit an API key reads');
  workspace
    .command('create')
    .description('create a workspace → {id}')
    .requiredOption('--name <name>', 'workspace name')
    .requiredOption('--timezone <tz>', 'IANA time zone, e.g. Europe/Berlin')
    .requiredOption('--currency <code>', 'default ISO 4217 currency, e.g. EUR')
    .option('--owner <account>', 'account id or email that becomes the owner')
    .option('--offer-domain <host>', 'custom domain of the offer pages')
    .option('--json', 'print one JSON object')
    .action((options: { name: string; timezone: string; currency: string; owner?: string; offerDomain?: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) =>
          createWorkspace(sql, clock, {
            name: options.name,
            timezone: options.timezone,
            currency: options.currency,
            offerDomain: options.offerDomain ?? null,
            ownerAccountId: options.owner === undefined ? null : await ctx.accountId(sql, options.owner),
          }),
        (r) => `workspace ${r.id} created`,
      ),
    );
}
