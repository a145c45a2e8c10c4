import type { Command } from 'commander';
import { createWorkspace } from '../../domain/accounts.js';
import { listWorkspaces } from '../../domain/listings.js';
import { setOfferDomain, verifyOfferDomain, type OfferDomainView } from '../../domain/offer-domain.js';
import { CliError, type CliContext } from '../context.js';

export function register(program: Command, ctx: CliContext): void {
  const workspace = program.command('workspace').description('workspaces: the unit an API key reads');
  workspace
    .command('create')
    .description('create a workspace → {id}')
    .requiredOption('--name <name>', 'workspace name')
    .requiredOption('--timezone <tz>', 'IANA time zone, e.g. Europe/Berlin')
    .requiredOption('--currency <code>', 'default ISO 4217 currency, e.g. EUR')
    .option('--owner <account>', 'account id or email that becomes the owner')
    .option('--offer-domain <host>', 'custom domain of the offer pages (unverified until "workspace verify-domain")')
    .option('--json', 'print one JSON object')
    .action((options: { name: string; timezone: string; currency: string; owner?: string; offerDomain?: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock, config }) =>
          createWorkspace(sql, clock, {
            name: options.name,
            timezone: options.timezone,
            currency: options.currency,
            offerDomain: options.offerDomain ?? null,
            ownerAccountId: options.owner === undefined ? null : await ctx.accountId(sql, options.owner),
            blockedDomainSuffixes: config.webhooks.blockedDomainSuffixes,
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
  workspace
    .command('set-offer-domain')
    .description('set the custom domain of the offer pages (owners) → the DNS TXT record that verifies it')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--domain <host>', 'the domain, e.g. offers.your-company.com')
    .option('--clear', 'remove the offer domain')
    .requiredOption('--as <account>', 'acting owner (account id or email)')
    .option('--json', 'print one JSON object')
    .action((options: { workspace: string; domain?: string; clear?: boolean; as: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, config }) => {
          if ((options.domain === undefined) === !options.clear) throw new CliError('give either --domain <host> or --clear');
          return setOfferDomain(sql, {
            workspaceId: options.workspace,
            domain: options.clear ? null : options.domain!,
            actorId: await ctx.accountId(sql, options.as),
            blockedSuffixes: config.webhooks.blockedDomainSuffixes,
          });
        },
        (view) => domainLine(view, options.as),
      ),
    );
  workspace
    .command('verify-domain')
    .description('check the DNS TXT record of the offer domain (owners); once verified, no endpoint may use the domain')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--as <account>', 'acting owner (account id or email)')
    .option('--json', 'print one JSON object')
    .action((options: { workspace: string; as: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) =>
          verifyOfferDomain(sql, clock, { workspaceId: options.workspace, actorId: await ctx.accountId(sql, options.as) }),
        (view) => domainLine(view, options.as),
      ),
    );
}

function domainLine(view: OfferDomainView, actor: string): string {
  if (!view.domain || !view.record) return `workspace ${view.workspace_id} has no offer domain`;
  if (view.verified) return `offer domain ${view.domain} of workspace ${view.workspace_id} is verified (${view.verified_at})`;
  return (
    `offer domain ${view.domain} of workspace ${view.workspace_id} is not verified yet: create the DNS record ` +
    `${view.record.name} ${view.record.type} "${view.record.value}", then run: ` +
    `offerdesk workspace verify-domain --workspace ${view.workspace_id} --as ${actor}`
  );
}
