import { RateLimiterCompatibleAbstract, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { SECOND } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { connectRedis, type RedisConnection, type RedisHealth } from '../../redis.js';
import { FixedWindows, type WindowCount } from './fixed-windows.js';

/** openapi.yaml "Limits": "Each limit uses a fixed 60-second window, starting with the first request". */
export const RATE_WINDOW_SECONDS = 60;
/**
 * How often ended windows leave memory. A sweep walks every entry (about a millisecond for
 * 32,000 keys); sweeping once per window would keep a burst of one-off keys for up to two windows.
 */
const SWEEP_EVERY_MS = 10 * SECOND;

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
 * happens in it. In memory by default (src/api/admission/fixed-windows.ts); through Redis when
 * REDIS_URL is set (rate-limiter-flexible, no block duration), so every API process enforces one
 * shared limit. When Redis fails or stops answering, the same per-process memory windows
 * (`insuranceLimiter`) keep the limits in force instead of failing open, within the Redis command
 * timeout (src/redis.ts); while the connection is down they decide at once
 * (`rejectIfRedisNotReady`), and Redis decides again once it answers. Counts made in memory
 * during an outage stay in memory.
 */
export function createRateLimits(config: Config, logger: Logger): RateLimits {
  // One connection, with one error listener, shared by both limiters.
  const redis: RedisConnection | undefined = config.redisUrl
    ? connectRedis(config.redisUrl, config.redis, logger, 'rate limits')
    : undefined;
  const memories: FixedWindows[] = [];
  const limiter = (keyPrefix: string, points: number): ((key: string) => Promise<WindowState>) => {
    const memory = new FixedWindows({ windowMs: RATE_WINDOW_SECONDS * SECOND, sweepEveryMs: SWEEP_EVERY_MS });
    memories.push(memory);
    if (!redis) return async (key) => windowState(points, memory.hit(key));
    const shared = new RateLimiterRedis({
      storeClient: redis.client,
      keyPrefix: `offerdesk:rl:${keyPrefix}`,
      points,
      duration: RATE_WINDOW_SECONDS,
      insuranceLimiter: new MemoryInsurance(memory, points),
      rejectIfRedisNotReady: true,
    });
    return (key) => consumeShared(shared, points, key);
  };

  return {
    consumeIp: limiter('ip', config.rateLimitPerIp),
    consumeKey: limiter('key', config.rateLimitPerKey),
    probeStore: async () => (redis ? redis.probe() : 'not_configured'),
    async close() {
      for (const memory of memories) memory.close();
      await redis?.close();
    },
  };
}

function windowState(points: number, window: WindowCount): WindowState {
  return {
    allowed: window.count <= points,
    limit: points,
    remaining: Math.max(0, points - window.count),
    resetSeconds: Math.max(1, Math.ceil(window.msLeft / 1000)),
  };
}

async function consumeShared(target: RateLimiterRedis, points: number, key: string): Promise<WindowState> {
  let outcome: RateLimiterRes;
  try {
    outcome = await target.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    outcome = rejection;
  }
  return windowState(points, { count: outcome.consumedPoints, msLeft: outcome.msBeforeNext });
}

/**
 * The memory windows in the form RateLimiterRedis takes as its insurance (a
 * RateLimiterCompatibleAbstract). It is asked only to consume one point per request: the API
 * limits never reward, block, set or delete. The three fields are own data properties (class
 * fields are defined, not assigned), so they shadow the base class's throwing accessors and take
 * the block settings the Redis limiter hands down (none: no block duration, not evenly).
 */
class MemoryInsurance extends RateLimiterCompatibleAbstract {
  override readonly keyPrefix = '';
  override blockDuration = 0;
  override execEvenly = false;

  constructor(
    private readonly windows: FixedWindows,
    private readonly points: number,
  ) {
    super();
  }

  override consume(key: string | number): Promise<RateLimiterRes> {
    const { count, msLeft } = this.windows.hit(String(key));
    const outcome = new RateLimiterRes(Math.max(0, this.points - count), msLeft, count, count === 1);
    return count > this.points ? Promise.reject(outcome) : Promise.resolve(outcome);
  }
}
