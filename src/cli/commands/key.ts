import type { Command } from 'commander';
import { MEMBERSHIP_ROLES, requireRole } from '../../domain/accounts.js';
import { API_KEY_PREFIX } from '../../domain/api-key-format.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../domain/api-keys.js';
import { resolveActor, withActor, type ActorOptions } from '../actor.js';
import { parseIsoTime, type CliContext } from '../context.js';

/** SPEC.md "Authentication" 3: owners and admins manage keys; the key value is shown only at creation. */
export function register(program: Command, ctx: CliContext): void {
  const key = program.command('key').description('API keys (read access to one workspace)');
  withActor(
    key
      .command('create')
      .description('create an API key → {id, key}; the key is shown only here')
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--name <name>', 'a name to tell keys apart')
      .option('--expires-at <iso>', 'expiry time (ISO 8601)', parseIsoTime),
    'an owner or admin',
  )
    .option('--json', 'print one JSON object')
    .action((options: ActorOptions & { workspace: string; name: string; expiresAt?: Date; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) =>
          createApiKey(sql, clock, {
            workspaceId: options.workspace,
            name: options.name,
            expiresAt: options.expiresAt ?? null,
            actingAccountId: await resolveActor(sql, options),
          }),
        (r) => `API key ${r.id} created; store it now, it is not shown again:\n${r.key}`,
      ),
    );
  withActor(
    key
      .command('list')
      .description('list the keys of a workspace (never their values)')
      .requiredOption('--workspace <id>', 'workspace id'),
    'any member',
  )
    .option('--json', 'print one JSON object')
    .action((options: ActorOptions & { workspace: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) => {
          // Members see the keys as in the console; anyone else: not found (SPEC.md "Authentication" 5).
          await requireRole(sql, { workspaceId: options.workspace, accountId: await resolveActor(sql, options), roles: MEMBERSHIP_ROLES });
          // What of a key may be shown: the fixed prefix and the stored last four characters.
          const keys = await listApiKeys(sql, options.workspace, clock);
          return { data: keys.map((k) => ({ ...k, visible: `${API_KEY_PREFIX}…${k.hint}` })) };
        },
        (r) =>
          r.data.length === 0
            ? 'no API keys'
            : r.data
                .map((k) => `${k.id}  ${k.visible}  ${k.state.padEnd(7)}  ${k.name}${k.expires_at ? `  expires ${k.expires_at.toISOString()}` : ''}`)
                .join('\n'),
      ),
    );
  withActor(key.command('revoke <keyId>').description('revoke a key at once'), 'an owner or admin')
    .option('--json', 'print one JSON object')
    .action((keyId: string, options: ActorOptions & { json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) => {
          const result = await revokeApiKey(sql, clock, { keyId, actingAccountId: await resolveActor(sql, options) });
          return { id: result.id, revoked_at: result.revokedAt };
        },
        (r) => `API key ${r.id} revoked at ${r.revoked_at.toISOString()}`,
      ),
    );
}
