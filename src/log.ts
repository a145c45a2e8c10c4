import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout; tests pass `level: 'silent'`. */
export function createLogger(level: string, name = 'offerdesk'): Logger {
  return pino({ name, level, base: { pid: process.pid } });
}

/**
 * Normalise anything thrown into an Error once (STYLE.md "Errors", graphile's coerceError),
 * so logs always carry a message and a stack.
 */
export function coerceError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new Error(typeof thrown === 'string' ? thrown : JSON.stringify(thrown), { cause: thrown });
}
