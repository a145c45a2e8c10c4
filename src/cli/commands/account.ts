import type { Command } from 'commander';
import { createAccount, resolveAccount } from '../../domain/accounts.js';
import { listAccounts } from '../../domain/listings.js';
import { MIN_PASSWORD_LENGTH, setPassword } from '../../domain/passwords.js';
import { createSignInLink, SIGN_IN_LINK_LIFETIME, signInLinkUrl } from '../../domain/sign-in-links.js';
import type { CliContext } from '../context.js';
import { readSecretLine } from '../read-secret.js';

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
    .command('sign-in-link')
    .description(`a one-time console sign-in link for an account → {url, expires_at} (single use, ${SIGN_IN_LINK_LIFETIME})`)
    .requiredOption('--email <email>', 'the account to sign in')
    .option('--json', 'print one JSON object')
    .action((options: { email: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock, config }) => {
          const target = await resolveAccount(sql, options.email);
          const link = await createSignInLink(sql, clock, { accountId: target.id });
          return { url: signInLinkUrl(config.publicUrl, link.token), expires_at: link.expiresAt.toISOString() };
        },
        (r) => `sign-in link for ${options.email} (works once, until ${r.expires_at}):\n${r.url}`,
      ),
    );
  account
    .command('set-password')
    .description(`set an account's console password, read from stdin (at least ${MIN_PASSWORD_LENGTH} characters); ends its sessions`)
    .requiredOption('--email <email>', 'the account')
    .option('--json', 'print one JSON object')
    .action((options: { email: string; json?: boolean }) =>
      ctx.run(
        options,
        async ({ sql, clock }) => {
          const target = await resolveAccount(sql, options.email);
          const password = await readSecretLine(`New password for ${target.email} (at least ${MIN_PASSWORD_LENGTH} characters): `);
          const result = await setPassword(sql, clock, { accountId: target.id, password });
          return { account_id: result.accountId, ended_sessions: result.endedSessions };
        },
        (r) => `password set for ${options.email}; ${r.ended_sessions} console session(s) ended`,
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
