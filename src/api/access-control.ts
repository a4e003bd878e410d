/**
 * Builds the request guards of access control and rate limiting from the Config (createApp mounts them, through
 * its `guards`, on /v1 before every /v1 route; routing is case-sensitive and strict, src/api/routing.ts):
 *   AUTH_MODE=required  the auth guard (tokens in Redis with REDIS_URL, else in AUTH_TOKENS_FILE), then the rate
 *                       limiter per token (the token's rate, else RATE_LIMIT);
 *   AUTH_MODE=off       the rate limiter per client address when RATE_LIMIT is set; nothing otherwise.
 * Counters live in Redis with REDIS_URL (`${REDIS_PREFIX}:rl:<window>:<token id or ip:address>`), else in memory.
 * The Redis, when there is one, is the process's (src/redis.ts): tokens and counters use its shared connection.
 */
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { RedisConnections } from '../redis.ts';
import { MemoryCostStore, RedisCostStore, type CostStore } from '../auth/cost-stores.ts';
import { parseRate, type RateWindow } from '../auth/rate.ts';
import { FileTokenStore, RedisTokenStore, type TokenStore } from '../auth/token-store.ts';
import { authGuard } from './auth.ts';
import { rateLimiter } from './rate-limit.ts';

export interface AccessControl {
  guards: RequestHandler[];
  tokenStore?: TokenStore;
  close(): Promise<void>;
}

/** The token store of this configuration: in the process's Redis when there is one, the token file otherwise. */
export function tokenStoreFor(config: Config, redis: RedisConnections | undefined): TokenStore {
  return redis ? new RedisTokenStore(redis.shared(), redis.prefix) : new FileTokenStore(config.AUTH_TOKENS_FILE);
}

export function createAccessControl(config: Config, logger: Logger, redis?: RedisConnections): AccessControl {
  const required = config.AUTH_MODE === 'required';
  const defaultRate = config.RATE_LIMIT === undefined ? undefined : parseRate(config.RATE_LIMIT);
  const guards: RequestHandler[] = [];
  const tokenStore = required ? tokenStoreFor(config, redis) : undefined;
  if (tokenStore) {
    guards.push(
      authGuard({ store: tokenStore, prefix: config.AUTH_TOKEN_PREFIX, drainMaxBytes: config.BULK_DRAIN_MAX_BYTES }),
    );
  }
  const stores: CostStore[] = [];
  if (required || defaultRate) {
    guards.push(
      rateLimiter({
        perToken: required,
        defaultRate,
        drainMaxBytes: config.BULK_DRAIN_MAX_BYTES,
        logger: logger.child({ component: 'rate-limit' }),
        storeFor: (window: RateWindow) => {
          const store = redis
            ? new RedisCostStore(redis.shared(), `${redis.prefix}:rl:${window}:`)
            : new MemoryCostStore(`${config.REDIS_PREFIX}:rl:${window}:`);
          stores.push(store);
          return store;
        },
      }),
    );
  }
  logger.info(
    {
      authMode: config.AUTH_MODE,
      tokenStore: tokenStore?.kind,
      tokenPrefix: required ? config.AUTH_TOKEN_PREFIX : undefined,
      rateLimit: config.RATE_LIMIT ?? null,
      rateLimitStore: stores.length === 0 ? undefined : redis ? 'redis' : 'memory',
    },
    required
      ? 'access control: every /v1 call but GET /v1/openapi.json needs a bearer token'
      : 'access control: off (AUTH_MODE=off), the v1 API is open',
  );
  return {
    guards,
    tokenStore,
    async close() {
      for (const s of stores) await s.shutdown?.();
      await tokenStore?.close();
    },
  };
}
