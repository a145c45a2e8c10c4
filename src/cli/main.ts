#!/usr/bin/env node
import { Command } from 'commander';
import * as account from './commands/account.js';
import * as delivery from './commands/delivery.js';
import * as endpoint from './commands/endpoint.js';
import * as jobs from './commands/jobs.js';
import * as key from './commands/key.js';
import * as listen from './commands/listen.js';
import * as member from './commands/member.js';
import * as migrate from './commands/migrate.js';
import * as offer from './commands/offer.js';
import * as secrets from './commands/secrets.js';
import * as seed from './commands/seed.js';
import * as serve from './commands/serve.js';
import * as worker from './commands/worker.js';
import * as workspace from './commands/workspace.js';
import { configureProgram, createCliContext, runProgram, type CommandModule } from './context.js';

/** `offerdesk`: each command module registers its commands; this file only lists them. */
const COMMANDS: CommandModule[] = [
  migrate,
  serve,
  worker,
  jobs,
  account,
  workspace,
  member,
  key,
  offer,
  seed,
  endpoint,
  delivery,
  secrets,
  listen,
];

const program = configureProgram(new Command('offerdesk'))
  .description('Offerdesk: read-only offers API, signed webhooks, and the product actions behind them')
  .version('0.1.0')
  .option('--verbose', 'say on stderr which database the command uses');
const ctx = createCliContext();
program.hook('preAction', (_program, action) => {
  ctx.verbose = program.opts<{ verbose?: boolean }>().verbose === true;
  const names: string[] = [];
  for (let command: typeof action | null = action; command; command = command.parent) names.unshift(command.name());
  ctx.command = names.join(' ');
});
for (const command of COMMANDS) command.register(program, ctx);

await runProgram(program, process.argv);
