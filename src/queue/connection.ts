/**
 * Redis connections of the queue, with the discipline BullMQ needs:
 *  - workers and QueueEvents (blocking readers) retry forever: maxRetriesPerRequest null;
 *  - the API's producer fails fast: no offline queue, one retry per request, so a chunk that cannot be queued
 *    falls back to the local pool at once instead of hanging the request.
 * Also the start-up / readiness check of the Redis server itself (version, eviction policy).
 */
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';

/** BullMQ 5 needs Redis >= 5; we ask for 6.2 (the oldest Redis line still maintained, and what BullMQ tests). */
export const MIN_REDIS_VERSION = '6.2.0';

const reconnect = (times: number): number => Math.min(200 * 2 ** Math.min(times, 5), 5000);

/** Options for connections that must survive Redis restarts: workers, QueueEvents, the worker's result writer. */
export function blockingOptions(extra: RedisOptions = {}): RedisOptions {
  return { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: reconnect, ...extra };
}

/** Options for the API's producer: commands fail immediately while Redis is unreachable. */
export function producerOptions(extra: RedisOptions = {}): RedisOptions {
  return {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    enableReadyCheck: true,
    connectTimeout: 2000,
    commandTimeout: 10_000,
    retryStrategy: reconnect,
    ...extra,
  };
}

export function createRedis(url: string, options: RedisOptions): Redis {
  return new Redis(url, options);
}

/**
 * Resolves when the client is ready, rejects after `ms` (the client keeps reconnecting in the background) or,
 * with `failOnError`, at the first connection error.
 */
export function waitReady(client: Redis, ms: number, failOnError = false): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let lastError: Error | undefined;
    const onError = (err: Error) => {
      lastError = err;
      if (failOnError) {
        cleanup();
        reject(new Error(`Redis connection failed: ${err.message}`));
      }
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not answer within ${ms} ms${lastError ? `: ${lastError.message}` : ''}`));
    }, ms);
    timer.unref();
    const cleanup = () => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
    };
    client.on('ready', onReady);
    client.on('error', onError);
  });
}

/** What a readiness probe may say about Redis: a state, never an address. */
export type RedisState = 'ready' | 'unreachable' | 'version_too_old' | 'evicting';

export interface RedisCheck {
  ok: boolean;
  state: RedisState;
  /** One sentence saying what is wrong (or what was found), for the logs (may name host:port, never a password). */
  detail: string;
  version?: string;
  maxmemoryPolicy?: string;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function infoField(info: string, name: string): string | undefined {
  const m = new RegExp(`^${name}:(.*)$`, 'm').exec(info);
  return m?.[1]?.trim();
}

/**
 * Checks that Redis answers, is recent enough and never evicts keys (maxmemory-policy noeviction): an evicting
 * Redis silently drops queued chunks and job results. Uses INFO (allowed on managed Redis, unlike CONFIG GET).
 */
export async function checkRedisServer(client: Redis): Promise<RedisCheck> {
  let info: string;
  try {
    info = await client.info();
  } catch (err) {
    return { ok: false, state: 'unreachable', detail: `Redis is unreachable: ${(err as Error).message}` };
  }
  const version = infoField(info, 'redis_version') ?? 'unknown';
  const policy = infoField(info, 'maxmemory_policy') ?? 'unknown';
  if (version === 'unknown' || compareVersions(version, MIN_REDIS_VERSION) < 0) {
    return {
      ok: false,
      state: 'version_too_old',
      version,
      maxmemoryPolicy: policy,
      detail: `Redis ${version} is too old: the queue needs Redis >= ${MIN_REDIS_VERSION}`,
    };
  }
  if (policy !== 'noeviction') {
    return {
      ok: false,
      state: 'evicting',
      version,
      maxmemoryPolicy: policy,
      detail:
        `Redis maxmemory-policy is "${policy}": it must be "noeviction", or Redis may silently evict queued ` +
        'chunks and job results (set maxmemory-policy noeviction in redis.conf or your provider settings)',
    };
  }
  return {
    ok: true,
    state: 'ready',
    version,
    maxmemoryPolicy: policy,
    detail: `Redis ${version}, maxmemory-policy noeviction`,
  };
}

/** Kept here for existing importers; the one redaction lives in src/redact.ts. */
export { redactUrl } from '../redact.ts';
