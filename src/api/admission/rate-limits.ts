import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';

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
  close(): Promise<void>;
}

/**
 * Fixed windows: the window opens with the first request and closes 60 s later, whatever
 * happens in it (rate-limiter-flexible's default, no block duration). In memory by default;
 * through Redis when REDIS_URL is set, so every API process enforces one shared limit. When
 * Redis fails, a per-process memory limiter keeps the limits in force instead of failing open.
 */
export function createRateLimits(config: Config, logger: Logger): RateLimits {
  let redis: Redis | undefined;
  const limiter = (keyPrefix: string, points: number) => {
    const memory = new RateLimiterMemory({ keyPrefix, points, duration: RATE_WINDOW_SECONDS });
    if (!config.redisUrl) return memory;
    redis ??= new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    redis.on('error', (error) => logger.warn({ err: error }, 'rate limit store (Redis) unavailable'));
    return new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `offerdesk:rl:${keyPrefix}`,
      points,
      duration: RATE_WINDOW_SECONDS,
      insuranceLimiter: memory,
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
    async close() {
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
