import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';

export type { Logger };

/** JSON lines on stdout, or on `destination` (a test that reads them); tests pass `level: 'silent'`. */
export function createLogger(level: string, name = 'offerdesk', destination?: DestinationStream): Logger {
  const options = { name, level, base: { pid: process.pid } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The logger of `serve` and `worker`: JSON lines for log collectors, or on a terminal (LOG_FORMAT
 * `auto`) one readable line per entry. A terminal without an explicit LOG_LEVEL shows warnings and
 * errors only, so the start banner is not buried under start-up lines.
 */
export function createServiceLogger(config: Config, name = 'offerdesk', isTerminal = Boolean(process.stdout.isTTY)): Logger {
  const prettyOutput = config.logFormat === 'pretty' || (config.logFormat === 'auto' && isTerminal);
  if (!prettyOutput) return createLogger(config.logLevel, name);
  const level = config.logLevelExplicit ? config.logLevel : 'warn';
  // Synchronous in this thread: lines come out in order with the banner, and nothing is lost on exit.
  const stream = pretty({ sync: true, colorize: isTerminal, ignore: 'pid,hostname,name', translateTime: 'SYS:HH:MM:ss' });
  return pino({ name, level }, stream);
}

/**
 * Normalise anything thrown into an Error once (as graphile-worker's coerceError),
 * so logs always carry a message and a stack.
 */
export function coerceError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new Error(typeof thrown === 'string' ? thrown : JSON.stringify(thrown), { cause: thrown });
}
