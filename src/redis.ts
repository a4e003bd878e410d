/**
 * The one place that decides Redis. From the Config (REDIS_URL, REDIS_PREFIX) `redisFromConfig` makes the
 * process's connections and owns them: the queue (src/queue/), the job store (src/jobs/redis-job-store.ts), the
 * token store and the rate-limit counters (src/auth/, src/api/access-control.ts) take theirs from it, in the API
 * (src/runtime.ts), the queue worker (workers/queue.worker.ts) and `sor token` alike. Without REDIS_URL there is
 * no Redis at all (undefined): each of those uses its in-process or file store instead.
 *
 * Connections, with the discipline BullMQ needs:
 *  - `shared()`: the one command connection. Fails fast (no offline queue, one retry per command), so a chunk that
 *    cannot be queued falls back to the local pool at once and a request never hangs on Redis;
 *  - `blocking(name)`: a connection of its own for a blocking reader (a BullMQ Worker, QueueEvents) that retries
 *    forever (maxRetriesPerRequest null) and survives Redis restarts;
 *  - `close()`: ends every connection made here.
 * Also the start-up / readiness check of the Redis server itself (version, eviction policy).
 */
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { Config } from './config.ts';
import { redactText, redactUrl, urlSecrets } from './redact.ts';

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

/** The Redis connections of one process, and the key prefix of everything the service keeps there. */
export interface RedisConnections {
  /** REDIS_PREFIX: every key of the service (queue, jobs, tokens, rate counters) starts with it and `:`. */
  readonly prefix: string;
  /** The URL with its password hidden, for logs. */
  readonly where: string;
  /** `text` (an error's message) with the URL and its user and password hidden, for logs. */
  redact(text: string): string;
  /** The shared fail-fast command connection (made on first use). */
  shared(): Redis;
  /** A new connection that retries forever, for one blocking reader; `name` is its CLIENT SETNAME. */
  blocking(name: string): Redis;
  /** The server check (reachable, version, noeviction) over the shared connection, waiting up to `waitMs`. */
  check(waitMs?: number): Promise<RedisCheck>;
  /** Ends every connection made here (QUIT when ready, else a disconnect). Idempotent. */
  close(): Promise<void>;
}

/** The process's Redis, from REDIS_URL and REDIS_PREFIX; undefined without REDIS_URL. */
export function redisFromConfig(
  config: Pick<Config, 'REDIS_URL' | 'REDIS_PREFIX'>,
  sharedName = 'sor-api-producer',
): RedisConnections | undefined {
  const url = config.REDIS_URL;
  if (!url) return undefined;
  const secrets = urlSecrets(url);
  const made: Redis[] = [];
  let shared: Redis | undefined;
  let closing: Promise<void> | undefined;
  const make = (options: RedisOptions): Redis => {
    if (closing) throw new Error('the Redis connections are closed');
    const client = new Redis(url, options);
    made.push(client);
    return client;
  };
  return {
    prefix: config.REDIS_PREFIX,
    where: redactUrl(url),
    redact: (text: string) => redactText(text, secrets),
    shared() {
      shared ??= make(producerOptions({ connectionName: sharedName }));
      return shared;
    },
    blocking(name: string) {
      return make(blockingOptions({ connectionName: name }));
    },
    async check(waitMs = 1000) {
      const client = this.shared();
      if (client.status !== 'ready') {
        try {
          await waitReady(client, waitMs, true);
        } catch (err) {
          return { ok: false, state: 'unreachable', detail: `Redis is unreachable: ${(err as Error).message}` };
        }
      }
      return checkRedisServer(client);
    },
    close() {
      closing ??= Promise.all(made.map(end)).then(() => undefined);
      return closing;
    },
  };
}

/**
 * Ends one connection and waits until it is closed (at most a second): QUIT lets a ready one finish its replies;
 * one not connected is dropped at once.
 */
async function end(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve) => {
    client.once('end', resolve);
    timer = setTimeout(resolve, 1000);
    timer.unref();
  });
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
  await ended;
  clearTimeout(timer);
}
