import { readFileSync } from 'node:fs';
import { CommanderError, InvalidArgumentError, type Command } from 'commander';
import { systemClock, type Clock } from '../clock.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import { openDatabase } from '../db/open.js';
import { resolveAccount } from '../domain/accounts.js';
import { DomainError } from '../domain/errors.js';
import { coerceError } from '../log.js';
import { startTracing, tracedSql, withSpan } from '../telemetry/tracing.js';

/**
 * Plumbing shared by the `offerdesk` commands: one database per run, output as one JSON object
 * (`--json`) or one human line, and every failure as exactly one line on stderr. Exit codes:
 * 0 done; 2 refused input (bad option, unknown id, invalid transition, missing role); 1 anything
 * unexpected (database down, a bug). Never a stack trace.
 */
export const EXIT_OK = 0;
export const EXIT_UNEXPECTED = 1;
export const EXIT_BAD_INPUT = 2;

/** A refusal found by the CLI itself (unreadable file, bad value): exit code 2. */
export class CliError extends Error {
  override name = 'CliError';
}

/**
 * A command's spans are exported before it exits, for at most this long (retries included), and
 * their loss is one warning line: telemetry never changes a command's output or exit code, nor
 * holds up a script (docs/operations.md "Tracing").
 */
const CLI_TRACE_EXPORT_MS = 1500;
const CLI_TRACE_SHUTDOWN_MS = 2000;

export interface CommandEnv {
  sql: Sql;
  clock: Clock;
  config: Config;
}

export interface CliContext {
  clock: Clock;
  /**
   * Opens the database, runs `work`, prints its result (the object itself with --json, else
   * `text(result)`), closes the database, and turns a failure into one line and an exit code.
   */
  run<T extends object>(options: { json?: boolean }, work: (env: CommandEnv) => Promise<T>, text: (result: T) => string): Promise<void>;
  /** An account id or email (`--as`, `--owner`, `--account`) to the account id. */
  accountId(sql: Sql, idOrEmail: string): Promise<string>;
  /** `--verbose` (a program-wide option): say on stderr which database a command uses. */
  verbose: boolean;
  /** The command being run, as typed without its arguments (`offerdesk offer send`): its span's name. */
  command: string;
}

/** What main.ts lists: each command module registers its commands on the program. */
export interface CommandModule {
  register(program: Command, ctx: CliContext): void;
}

export function createCliContext(clock: Clock = systemClock): CliContext {
  const ctx: CliContext = {
    clock,
    verbose: false,
    command: 'offerdesk',
    async run(options, work, text) {
      try {
        const config = loadConfig();
        // With tracing on, the command is one span (its outbox rows keep its traceparent), exported
        // before the process ends; started before the pool so its statements are traced too.
        const tracing = await startTracing(config.tracing, { exportTimeoutMs: CLI_TRACE_EXPORT_MS, shutdownTimeoutMs: CLI_TRACE_SHUTDOWN_MS });
        try {
          const db = await openDatabase(config, { applicationName: 'offerdesk-cli' });
          if (ctx.verbose) process.stderr.write(`offerdesk: database: ${db.description}\n`);
          try {
            const result = await withSpan(ctx.command, {}, (span) => work({ sql: tracedSql(db.sql, span), clock, config }));
            process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : `${text(result)}\n`);
          } finally {
            await db.close();
          }
        } finally {
          const lost = await tracing.shutdown();
          if (lost) process.stderr.write(`offerdesk: warning: traces not exported: ${oneLine(lost)}\n`);
        }
      } catch (thrown) {
        fail(thrown);
      }
    },
    async accountId(sql, idOrEmail) {
      return (await resolveAccount(sql, idOrEmail)).id;
    },
  };
  return ctx;
}

function isRefusal(error: Error): boolean {
  return error instanceof DomainError || error instanceof CliError || error instanceof ConfigError;
}

/** Reports a failure as one line on stderr and sets the exit code; the process ends on its own. */
export function fail(thrown: unknown): void {
  const error = coerceError(thrown);
  process.stderr.write(`offerdesk: ${oneLine(error.message) || error.name}\n`);
  // A domain refusal's exit code is its code's own (domain/errors.ts DOMAIN_ERRORS).
  process.exitCode = error instanceof DomainError ? error.cliExit : isRefusal(error) ? EXIT_BAD_INPUT : EXIT_UNEXPECTED;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Makes commander's own errors (unknown command or option, missing option, bad argument) follow
 * the same rule: one line, exit code 2, and no process.exit() while a command may still be
 * closing its database. Must be applied before commands are added: subcommands inherit it.
 */
export function configureProgram(program: Command): Command {
  return program
    .exitOverride()
    .configureOutput({
      outputError: (message, write) => write(`offerdesk: ${oneLine(message.replace(/^error: /, ''))}\n`),
    });
}

/** Parses argv and runs the command; commander's refusals become exit code 2. */
export async function runProgram(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (thrown) {
    if (thrown instanceof CommanderError) {
      // --help and --version end with exit code 0; everything else commander refuses is bad input.
      process.exitCode = thrown.exitCode === 0 ? EXIT_OK : EXIT_BAD_INPUT;
      return;
    }
    fail(thrown);
  }
}

// ---------------------------------------------------------------------------------------------
// Option parsers (commander argParser): they throw InvalidArgumentError, reported as one line.

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|([+-])(\d{2}):(\d{2})))?$/;

/**
 * An ISO 8601 time: `YYYY-MM-DD` (midnight UTC) or date and time with `Z` or an offset, seconds and
 * up to three fraction digits optional. A time without a zone is refused: it would be ambiguous.
 * Years 0001..9999 (openapi.yaml "Conventions": the range of every timestamp).
 */
export function parseIsoTime(raw: string): Date {
  const match = ISO_TIME.exec(raw);
  if (!match) throw new InvalidArgumentError('It must be an ISO 8601 time such as 2026-03-01T12:00:00Z or 2026-03-01.');
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0', zone, sign, zh = '0', zm = '0'] = match;
  const parts = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)] as const;
  const date = new Date(0);
  date.setUTCFullYear(parts[0], parts[1] - 1, parts[2]);
  date.setUTCHours(parts[3], parts[4], parts[5], Number(frac.padEnd(3, '0')));
  const valid =
    parts[0] >= 1 &&
    date.getUTCFullYear() === parts[0] &&
    date.getUTCMonth() === parts[1] - 1 &&
    date.getUTCDate() === parts[2] &&
    parts[3] <= 23 &&
    parts[4] <= 59 &&
    parts[5] <= 59 &&
    Number(zh) <= 23 &&
    Number(zm) <= 59;
  if (!valid) throw new InvalidArgumentError('It is not a real date and time.');
  if (zone && zone !== 'Z') {
    const offsetMs = (Number(zh) * 60 + Number(zm)) * 60_000 * (sign === '-' ? -1 : 1);
    date.setTime(date.getTime() - offsetMs);
  }
  return date;
}

export function parseWholeNumber(raw: string): number {
  if (!/^[0-9]{1,15}$/.test(raw)) throw new InvalidArgumentError('It must be a whole number.');
  return Number(raw);
}

/** Reads a JSON file named on the command line (e.g. `--pricing FILE.json`). */
export function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? coerceError(error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${what} ${path} is not valid JSON: ${coerceError(error).message}`);
  }
}
