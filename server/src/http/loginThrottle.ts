import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { SharedRedis } from '../redis.ts';
import { AppError } from '../errors.ts';

/**
 * The store behind every limiter, built in this one place: memory for a single process; in Redis
 * when API processes scale out, so that a client spreading its attempts over them gets no more.
 * @param keyPrefix what the limiter counts, keeping the keys of different limiters apart.
 * @param points attempts allowed per window.
 * @param durationS the window in seconds.
 * @param redis the shared Redis (FLEXSITE_REDIS_URL).
 * @returns the limiter.
 */
export function createLimiter(keyPrefix: string, points: number, durationS: number, redis?: SharedRedis): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration: durationS });
  if (!redis) return memory;
  // While Redis is away each process counts on its own: logins stay possible and still throttled.
  return new RateLimiterRedis({
    storeClient: redis.client,
    keyPrefix: `${redis.namespace}:${keyPrefix}`,
    points,
    duration: durationS,
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}

/** Login attempts counted per account e-mail and per client address, before any password work. */
export interface LoginThrottle {
  /** Counts an attempt; throws the 429 answer when either count is used up. */
  admit(email: string, address: string): Promise<void>;
  /** Forgets the failed attempts on an e-mail once its owner got in. */
  succeeded(email: string): Promise<void>;
}

const WINDOW_S = 60;

/**
 * @param config the attempts allowed per minute.
 * @param log where throttled attempts are reported.
 * @param redis where the counts are shared with the other API processes, if they are.
 * @returns the throttle of one server.
 */
export function createLoginThrottle(
  config: Pick<Config, 'loginAttemptsPerEmail' | 'loginAttemptsPerAddress'>,
  log: Logger,
  redis?: SharedRedis,
): LoginThrottle {
  const byAddress = createLimiter('login-address', config.loginAttemptsPerAddress, WINDOW_S, redis);
  const byEmail = createLimiter('login-email', config.loginAttemptsPerEmail, WINDOW_S, redis);
  // No stored e-mail is longer than 255 characters; a longer one must not hold a megabyte key.
  const emailKey = (email: string) => email.trim().toLowerCase().slice(0, 255);
  return {
    async admit(email, address) {
      let limiter = byAddress;
      try {
        await byAddress.consume(address);
        limiter = byEmail;
        await byEmail.consume(emailKey(email));
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        // Once per count and minute: a flood must not flood the log as well.
        if (err.consumedPoints === limiter.points + 1) {
          log.warn({ email: emailKey(email), address, limit: limiter === byAddress ? 'address' : 'email' }, 'login throttled');
        }
        throw tooManyAttempts(err.msBeforeNext);
      }
    },
    async succeeded(email) {
      await byEmail.delete(emailKey(email));
    },
  };
}

/** 429 in the shape of the token endpoint's other errors, with the seconds to wait in `Retry-After`. */
function tooManyAttempts(msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError(
    429,
    { errors: [`Too many login attempts. Try again in ${seconds} seconds.`], status: 429 },
    { 'Retry-After': String(seconds) },
  );
}
