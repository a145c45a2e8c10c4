import type { Command } from 'commander';
import { requireRole, MEMBERSHIP_ROLES, type Role } from '../../domain/accounts.js';
import { addMember, listMembers, removeMember } from '../../domain/members.js';
import { resolveActor, withActor, type ActorOptions } from '../actor.js';
import type { CliContext } from '../context.js';

/**
 * `offerdesk member ...`: who belongs to a workspace. The rules (an admin cannot make or remove an
 * owner, the last owner stays, members change nothing) live in src/domain/members.ts, shared with the console.
 */
export function register(program: Command, ctx: CliContext): void {
  const member = program.command('member').description('who belongs to a workspace, with which role');
  withActor(
    member
      .command('add')
      .description('add an account to a workspace, or change its role there')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--account <account>', 'account id or email')
      .requiredOption('--role <role>', 'owner, admin or member'),
    'an owner, or an admin for admin and member roles',
  )
    .option('--json', 'print one JSON object')
    .action((options: ActorOptions & { workspace: string; account: string; role: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) => {
          const result = await addMember(sql, clock, {
            workspaceId: options.workspace,
            accountId: await ctx.accountId(sql, options.account),
            role: options.role as Role,
            actorId: await resolveActor(sql, options),
          });
          return { workspace_id: result.workspaceId, account_id: result.accountId, role: result.role, previous_role: result.previousRole };
        },
        (r) => `account ${r.account_id} is ${r.role} of workspace ${r.workspace_id}${r.previous_role && r.previous_role !== r.role ? ` (was ${r.previous_role})` : ''}`,
      ),
    );
  withActor(
    member
      .command('remove')
      .description('remove an account from a workspace (never its last owner)')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--account <account>', 'account id or email'),
    'an owner, or an admin for admins and members',
  )
    .option('--json', 'print one JSON object')
    .action((options: ActorOptions & { workspace: string; account: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) => {
          const result = await removeMember(sql, clock, {
            workspaceId: options.workspace,
            accountId: await ctx.accountId(sql, options.account),
            actorId: await resolveActor(sql, options),
          });
          return { workspace_id: result.workspaceId, account_id: result.accountId, previous_role: result.previousRole };
        },
        (r) => `account ${r.account_id} (${r.previous_role}) removed from workspace ${r.workspace_id}`,
      ),
    );
  withActor(
    member.command('list').description("a workspace's members with their roles").requiredOption('--workspace <id>', 'workspace id'),
    'any member',
  )
    .option('--json', 'print one JSON object')
    .action((options: ActorOptions & { workspace: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql }) => {
          await requireRole(sql, { workspaceId: options.workspace, accountId: await resolveActor(sql, options), roles: MEMBERSHIP_ROLES });
          return { data: await listMembers(sql, options.workspace) };
        },
        (r) => r.data.map((m) => `${m.account_id}  ${m.email}  ${m.role}`).join('\n'),
      ),
    );
}
