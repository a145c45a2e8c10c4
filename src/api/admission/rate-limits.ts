import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { connectRedis, type RedisConnection, type RedisHealth } from '../../redis.js';

/** SPEC.md "API limits": "Each limit uses a fixed 60-second window, starting with the first request". */
export const RATE_WINDOW_SECONDS = 60;

export interface WindowState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window ends (RateLimit-Reset, Retry-After). */
  resetSeconds: number;
}

export interface RateLimits {
  consumeIp(key: string): Promise<WindowState>;
  consumeKey(key: string): Promise<WindowState>;
  /** The shared store's state for /readyz: `not_configured` without REDIS_URL. */
  probeStore(): Promise<RedisHealth | 'not_configured'>;
  close(): Promise<void>;
}

/**
 * Fixed windows: the window opens with the first request and closes 60 s later, whatever
 * happens in it (rate-limiter-flexible's default, no block duration). In memory by default;
 * through Redis when REDIS_URL is set, so every API process enforces one shared limit. When
 * Redis fails or stops answering, a per-process memory limiter (`insuranceLimiter`) keeps the
 * limits in force instead of failing open, within the Redis command timeout (src/redis.ts);
 * while the connection is down it decides at once (`rejectIfRedisNotReady`), and Redis decides
 * again once it answers. Counts made in memory during an outage stay in memory.
 */
export function createRateLimits(config: Config, logger: Logger): RateLimits {
  // One connection, with one error listener, shared by both limiters.
  const redis: RedisConnection | undefined = config.redisUrl
    ? connectRedis(config.redisUrl, config.redis, logger, 'rate limits')
    : undefined;
  const limiter = (keyPrefix: string, points: number) => {
    const memory = new RateLimiterMemory({ keyPrefix, points, duration: RATE_WINDOW_SECONDS });
    if (!redis) return memory;
    return new RateLimiterRedis({
      storeClient: redis.client,
      keyPrefix: `offerdesk:rl:${keyPrefix}`,
      points,
      duration: RATE_WINDOW_SECONDS,
      insuranceLimiter: memory,
      rejectIfRedisNotReady: true,
    });
  };
  const perIp = limiter('ip', config.rateLimitPerIp);
  const perKey = limiter('key', config.rateLimitPerKey);

  const consume = async (target: RateLimiterMemory | RateLimiterRedis, points: number, key: string) => {
    let outcome: RateLimiterRes;
    let allowed = true;
    try {
      outcome = await target.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      outcome = rejection;
      allowed = false;
    }
    return {
      allowed,
      limit: points,
      remaining: Math.max(0, points - outcome.consumedPoints),
      resetSeconds: Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)),
    };
  };

  return {
    consumeIp: (key) => consume(perIp, config.rateLimitPerIp, key),
    consumeKey: (key) => consume(perKey, config.rateLimitPerKey, key),
    probeStore: async () => (redis ? redis.probe() : 'not_configured'),
    async close() {
      await redis?.close();
    },
  };
}
