import type { Command } from 'commander';
import type { Sql } from '../db/connect.js';
import { resolveAccount } from '../domain/accounts.js';

/**
 * Who a command acts as (README.md, CLI reference: the operator's tool). The CLI holds the database's
 * credentials, so it can do anything; every command that reads or changes a workspace's members,
 * keys, endpoints or deliveries says on whose authority it does: `--as <account>` applies that
 * account's role exactly as the console does (console-api.yaml "Who may do what"), `--operator` acts as the
 * operator and is recorded so in the audit log. Exactly one of the two.
 */
export interface ActorOptions {
  as?: string;
  operator?: boolean;
}

export const ACTOR_REQUIRED = 'give exactly one of --as <account> (act as that account, with its role) or --operator (act as the operator)';

/** Adds `--as` and `--operator` to a command and refuses (one line, exit 2) unless exactly one is given. */
export function withActor(command: Command, who: string): Command {
  return command
    .option('--as <account>', `act as this account (ID or email): ${who}`)
    .option('--operator', 'act as the operator instead of an account (recorded as "operator (CLI)" in the audit log)')
    .hook('preAction', requireOneActor);
}

/** A preAction hook: exactly one of `--as` and `--operator`, else one line and exit code 2. */
export function requireOneActor(self: Command): void {
  const options = self.opts<ActorOptions>();
  if ((options.as === undefined) === (options.operator !== true)) self.error(ACTOR_REQUIRED, { exitCode: 2, code: 'offerdesk.actor' });
}

/** The acting account's id, or null for the operator (the domain's ActorId). */
export async function resolveActor(sql: Sql, options: ActorOptions): Promise<string | null> {
  if (options.operator) return null;
  return (await resolveAccount(sql, options.as!)).id;
}
