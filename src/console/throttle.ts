import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { loadConfig, type Config } from '../config.js';
import type { Logger } from '../log.js';
import { connectRedis, type RedisConnection } from '../redis.js';
import { ipLimitKey } from '../http/client-ip.js';

/**
 * Sign-in throttling (docs/console.md "Signing in": sign-in attempts are limited per account and per
 * client address). Every attempt counts, before the password is checked, so an unknown
 * email is throttled exactly like a known one and the answer never tells them apart; a
 * successful sign-in clears its email's count. Shared through Redis when REDIS_URL is set, over
 * the service's one Redis connection setup (src/redis.ts: command and socket timeouts, no offline
 * queue), so a down or frozen Redis falls back to the per-process memory limiter
 * (rate-limiter-flexible's insurance) within the command timeout instead of hanging sign-in.
 */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
// Limits per window: config.signInAttemptsPerEmail (default 10: enough for typos, far too few
// for guessing) and config.signInAttemptsPerAddress (default 50, IPv6 per /64: an office
// behind one address).

/**
 * What a throttle counts: password and link sign-ins (`sign-in`), or requests for an emailed
 * sign-in or password-reset link (`mail`, per email at config.mailRequestsPerEmail). Each has its
 * own counters, so asking for mails cannot lock anyone out of password sign-in, nor the reverse.
 */
export type ThrottlePurpose = 'sign-in' | 'mail';

export interface SignInThrottle {
  /** Counts one attempt; the seconds to wait when either limit is reached, else null. */
  attempt(input: { email: string | null; address: string | undefined }): Promise<number | null>;
  /** A successful sign-in: the email starts afresh. */
  succeeded(email: string): Promise<void>;
  /** Resolves once the shared store is connected (at once without Redis); until then, memory counts. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createSignInThrottle(
  config: Pick<Config, 'redisUrl' | 'signInAttemptsPerEmail' | 'signInAttemptsPerAddress'> &
    Partial<Pick<Config, 'redis' | 'mailRequestsPerEmail'>>,
  logger: Logger,
  purpose: ThrottlePurpose = 'sign-in',
): SignInThrottle {
  let connection: RedisConnection | undefined;
  if (config.redisUrl) {
    connection = connectRedis(config.redisUrl, config.redis ?? loadConfig({}).redis, logger, `${purpose} throttle`);
  }
  const redis = connection?.client;
  const limiter = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const memory = new RateLimiterMemory({ keyPrefix, points, duration: SIGN_IN_WINDOW_SECONDS });
    if (!redis) return memory;
    return new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `offerdesk:console:${keyPrefix}`,
      points,
      duration: SIGN_IN_WINDOW_SECONDS,
      insuranceLimiter: memory,
    });
  };
  // Sign-in counters keep the `signin` prefix, not the purpose's name, so counts already in Redis stay valid.
  const prefix = purpose === 'sign-in' ? 'signin' : 'mail';
  const perEmailLimit = purpose === 'sign-in' ? config.signInAttemptsPerEmail : (config.mailRequestsPerEmail ?? config.signInAttemptsPerEmail);
  const perEmail = limiter(`${prefix}-email`, perEmailLimit);
  const perAddress = limiter(`${prefix}-ip`, config.signInAttemptsPerAddress);

  const consume = async (target: RateLimiterAbstract, key: string): Promise<number | null> => {
    try {
      await target.consume(key);
      return null;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  };

  return {
    async attempt({ email, address }) {
      const waits = await Promise.all([
        consume(perAddress, ipLimitKey(address)),
        email === null ? null : consume(perEmail, email.trim().toLowerCase()),
      ]);
      const blocked = waits.filter((w): w is number => w !== null);
      return blocked.length > 0 ? Math.max(...blocked) : null;
    },
    async succeeded(email) {
      await perEmail.delete(email.trim().toLowerCase()).catch((error) => logger.warn({ err: error }, 'clearing a sign-in count failed'));
    },
    ready() {
      if (!redis || redis.status === 'ready') return Promise.resolve();
      return new Promise((resolve) => redis!.once('ready', () => resolve()));
    },
    async close() {
      await connection?.close();
    },
  };
}
