import type { Command } from 'commander';
import { createAccount } from '../../domain/accounts.js';
import { listAccounts } from '../../domain/listings.js';
import type { CliContext } from '../context.js';

export function register(program: Command, ctx: CliContext): void {
  const account = program.command('account').description('accounts of people who use the product');
  account
    .command('create')
    .description('create an account → {id}')
    .requiredOption('--email <email>', 'email address (unique)')
    .requiredOption('--name <name>', 'display name')
    .option('--json', 'print one JSON object')
    .action((options: { email: string; name: string; json?: boolean }) =>
      ctx.run(
        options,
        ({ sql, clock }) => createAccount(sql, clock, { email: options.email, name: options.name }),
        (r) => `account ${r.id} created for ${options.email}`,
      ),
    );
  account
    .command('list')
    .description('list every account: id, email, name')
    .option('--json', 'print one JSON object')
    .action((options: { json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql }) => ({ data: await listAccounts(sql) }),
        (r) => (r.data.length === 0 ? 'no accounts' : r.data.map((a) => `${a.id}  ${a.email}  ${a.name}`).join('\n')),
      ),
    );
}
