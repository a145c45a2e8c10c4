import type { Command } from 'commander';
import { createWorkspace } from '../../domain/accounts.js';
import { listWorkspaces } from '../../domain/listings.js';
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
  workspace
    .command('list')
    .description("list workspaces with their owners' emails (with --as: that account's, with its role)")
    .option('--as <account>', 'only the workspaces of this account (id or email)')
    .option('--json', 'print one JSON object')
    .action((options: { as?: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql }) => ({
          data: await listWorkspaces(sql, { accountId: options.as === undefined ? undefined : await ctx.accountId(sql, options.as) }),
        }),
        (r) =>
          r.data.length === 0
            ? 'no workspaces'
            : r.data
                .map((w) => `${w.id}  ${w.name}  (${w.timezone}, ${w.currency})  owners: ${w.owners.join(', ') || '-'}${w.role ? `  role: ${w.role}` : ''}`)
                .join('\n'),
      ),
    );
}
