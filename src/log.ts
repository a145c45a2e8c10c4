import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';

export type { Logger };

/**
 * Bytes of JSON lines gathered before one write to stdout, and the longest a line waits when
 * fewer arrive. Under load the request log writes one line per request (src/service/app.ts);
 * a write for each line cost the API about a tenth of its CPU per request.
 */
export const LOG_BUFFER_BYTES = 4096;
export const LOG_FLUSH_MS = 1000;

/**
 * JSON lines on stdout; tests pass `level: 'silent'`. Written in the background in batches of
 * LOG_BUFFER_BYTES or every LOG_FLUSH_MS; pino writes what is still buffered synchronously when
 * the process exits (process.exit included), so a stop loses no line.
 */
export function createLogger(level: string, name = 'offerdesk'): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
  return pino({ name, level, base: { pid: process.pid } }, destination);
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
