import type { Command } from 'commander';
import { addMember, type Role } from '../../domain/accounts.js';
import type { CliContext } from '../context.js';

export function register(program: Command, ctx: CliContext): void {
  const member = program.command('member').description('who belongs to a workspace, with which role');
  member
    .command('add')
    .description('add an account to a workspace, or change its role there')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--account <account>', 'account id or email')
    .requiredOption('--role <role>', 'owner, admin or member')
    .option('--json', 'print one JSON object')
    .action((options: { workspace: string; account: string; role: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) => {
          const result = await addMember(sql, clock, {
            workspaceId: options.workspace,
            accountId: await ctx.accountId(sql, options.account),
            role: options.role as Role,
          });
          return { workspace_id: result.workspaceId, account_id: result.accountId, role: result.role };
        },
        (r) => `account ${r.account_id} is ${r.role} of workspace ${r.workspace_id}`,
      ),
    );
}
