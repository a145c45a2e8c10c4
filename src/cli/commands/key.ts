import type { Command } from 'commander';
import { MEMBERSHIP_ROLES, requireRole } from '../../domain/accounts.js';
import { API_KEY_PREFIX } from '../../domain/api-key-format.js';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyListing } from '../../domain/api-keys.js';
import { resolveActor, withActor, type ActorOptions } from '../actor.js';
import { parseIsoTime, type CliContext } from '../context.js';

/** console-api.yaml "API keys": owners and admins manage keys; the key value is shown only at creation. */
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
          // Members see the keys as in the console; anyone else: not found (console-api.yaml "Who may do what").
          await requireRole(sql, { workspaceId: options.workspace, accountId: await resolveActor(sql, options), roles: MEMBERSHIP_ROLES });
          // What of a key may be shown: the fixed prefix and the stored last four characters.
          const keys = await everyApiKey(sql, clock, options.workspace);
          return { data: keys.map(({ created_at_key: _key, ...k }) => ({ ...k, visible: `${API_KEY_PREFIX}…${k.hint}` })) };
        },
        (r) =>
          r.data.length === 0
            ? 'no API keys'
            : r.data
                .map((k) => `${k.id}  ${k.visible}  ${k.status.padEnd(7)}  ${k.name}${k.expires_at ? `  expires ${k.expires_at}` : ''}`)
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

/** Keys read per page of the listing while the CLI walks all of a workspace's keys. */
const KEY_LIST_PAGE = 100;

/** Every key of a workspace, newest first: the console's listing, page after page. */
async function everyApiKey(sql: Parameters<typeof listApiKeys>[0], clock: Parameters<typeof listApiKeys>[1], workspaceId: string) {
  const keys: ApiKeyListing[] = [];
  let after: { createdAt: string; id: string } | null = null;
  for (;;) {
    const page = await listApiKeys(sql, clock, { workspaceId, limit: KEY_LIST_PAGE, after });
    keys.push(...page);
    const last = page.at(-1);
    if (page.length < KEY_LIST_PAGE || !last) return keys;
    after = { createdAt: last.created_at_key, id: last.id };
  }
}
