import { Redis } from 'ioredis';
import type { RedisTimeouts } from './config.js';
import { coerceError, type Logger } from './log.js';

/** First pause before reconnecting; doubled per attempt up to `reconnectMaxDelayMs`. */
const RECONNECT_FIRST_DELAY_MS = 50;

export type RedisHealth = 'ok' | 'unavailable';

export interface RedisConnection {
  client: Redis;
  /** True while the connection is usable; callers skip Redis (and use memory) otherwise. */
  ready(): boolean;
  /** PING within the command timeout; never waits longer. */
  probe(): Promise<RedisHealth>;
  close(): Promise<void>;
}

/**
 * The one way this service talks to Redis (rate limits, and any later use such as sign-in
 * throttling), so that a Redis that stops answering can never hold a request: a frozen or
 * partitioned server keeps its TCP connection open, so the client must notice on its own.
 *
 * - `commandTimeout`: a command without an answer fails after a few hundred milliseconds.
 * - `socketTimeout`: the same silence drops the connection, so the client leaves the `ready`
 *   state and every later command fails at once (callers check `ready()`) instead of each
 *   waiting out its own timeout; the ready check of each reconnect (INFO) is held to it too.
 * - `enableOfflineQueue: false`: nothing is queued while disconnected; commands fail at once.
 * - `autoResendUnfulfilledCommands: false`, `maxRetriesPerRequest: 0`: a counter increment that
 *   may have reached the server is never sent twice.
 * - Reconnects back off up to `reconnectMaxDelayMs` and never stop, so Redis is used again as
 *   soon as it answers.
 *
 * Errors are logged once per outage and kind (ioredis reports every failed reconnect), and the
 * return is logged once.
 */
export function connectRedis(url: string, timeouts: RedisTimeouts, logger: Logger, purpose: string): RedisConnection {
  const client = new Redis(url, {
    commandTimeout: timeouts.commandTimeoutMs,
    socketTimeout: timeouts.commandTimeoutMs,
    connectTimeout: timeouts.connectTimeoutMs,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(RECONNECT_FIRST_DELAY_MS * 2 ** Math.min(attempt, 16), timeouts.reconnectMaxDelayMs),
  });

  const seenThisOutage = new Set<string>();
  client.on('error', (error: Error) => {
    const kind = error.message;
    if (seenThisOutage.has(kind)) return;
    seenThisOutage.add(kind);
    logger.warn({ err: coerceError(error), purpose }, 'Redis unavailable; falling back to in-memory state');
  });
  client.on('ready', () => {
    if (seenThisOutage.size > 0) logger.info({ purpose }, 'Redis answers again');
    seenThisOutage.clear();
  });

  const ready = () => client.status === 'ready';
  return {
    client,
    ready,
    async probe() {
      if (!ready()) return 'unavailable';
      // commandTimeout bounds the wait; any failure (timeout, reset) counts as unavailable.
      return client.ping().then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      );
    },
    async close() {
      if (client.status === 'end') return;
      if (!ready()) {
        client.disconnect();
        return;
      }
      await client.quit().catch(() => client.disconnect());
    },
  };
}
