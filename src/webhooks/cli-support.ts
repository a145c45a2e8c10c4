import { systemClock, type Clock } from '../clock.js';
import { loadConfig, type Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import { openDatabase } from '../db/open.js';
import { DomainError } from '../domain/errors.js';
import { coerceError } from '../log.js';
import type { ManagementDeps } from './management.js';
import { loadMasterKey } from './secrets.js';

/**
 * Plumbing shared by the webhook CLI commands (endpoint, delivery, jobs): open the database,
 * print the result as JSON or text, and turn a refusal into one line on stderr with exit code 2
 * (anything unexpected: exit code 1).
 */
export interface WebhookCliContext {
  config: Config;
  sql: Sql;
  clock: Clock;
  manage: ManagementDeps;
}

// Commands that neither seal nor open a secret do not read (or create) the master key file.
const NO_KEY = Buffer.alloc(0);

export async function runWebhookCommand<T>(
  options: { json?: boolean; needsMasterKey?: boolean },
  work: (ctx: WebhookCliContext) => Promise<T>,
  text: (result: T) => string,
): Promise<void> {
  try {
    const config = loadConfig();
    const db = await openDatabase(config, { applicationName: 'offerdesk-cli' });
    try {
      const ctx: WebhookCliContext = {
        config,
        sql: db.sql,
        clock: systemClock,
        manage: { sql: db.sql, clock: systemClock, config: config.webhooks, masterKey: options.needsMasterKey ? loadMasterKey(config) : NO_KEY },
      };
      const result = await work(ctx);
      process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : `${text(result)}\n`);
    } finally {
      await db.close();
    }
  } catch (thrown) {
    const error = coerceError(thrown);
    const refused = error instanceof DomainError;
    process.stderr.write(`offerdesk: ${error.message.split('\n')[0]}\n`);
    process.exitCode = refused ? 2 : 1;
  }
}
