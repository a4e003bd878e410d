/**
 * Counters of the rate limiter (express-rate-limit) that can also be charged more than one unit at a time: a bulk
 * file or a job costs its students once they are counted (src/api/rate-limit.ts). Fixed windows: the first hit
 * of a key opens a window of `windowMs`; every hit or charge in it adds to the same count.
 *  - MemoryCostStore: per process (no REDIS_URL).
 *  - RedisCostStore: rate-limit-redis's RedisStore (shared by every API replica on the same Redis and prefix),
 *    plus `charge`, a Lua script with the same window rule as RedisStore's own increment.
 */
import type { Redis } from 'ioredis';
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';

export interface CostStore extends Store {
  /** Adds `units` to the key's count in its current window (opening one if none is open). */
  charge(key: string, units: number): Promise<void>;
}

interface Window {
  hits: number;
  resetAt: number;
}

export class MemoryCostStore implements CostStore {
  readonly localKeys = true;
  readonly prefix: string;
  #windowMs = 60_000;
  readonly #windows = new Map<string, Window>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(prefix = 'mem:') {
    this.prefix = prefix;
  }

  init(options: Options): void {
    this.#windowMs = options.windowMs;
    this.#sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const [k, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(k);
      },
      Math.max(1000, this.#windowMs),
    );
    this.#sweeper.unref();
  }

  #window(key: string): Window {
    const now = Date.now();
    let w = this.#windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { hits: 0, resetAt: now + this.#windowMs };
      this.#windows.set(key, w);
    }
    return w;
  }

  get(key: string): ClientRateLimitInfo | undefined {
    const w = this.#windows.get(key);
    if (!w || w.resetAt <= Date.now()) return undefined;
    return { totalHits: w.hits, resetTime: new Date(w.resetAt) };
  }

  increment(key: string): IncrementResponse {
    const w = this.#window(key);
    w.hits += 1;
    return { totalHits: w.hits, resetTime: new Date(w.resetAt) };
  }

  decrement(key: string): void {
    const w = this.#windows.get(key);
    if (w && w.hits > 0) w.hits -= 1;
  }

  resetKey(key: string): void {
    this.#windows.delete(key);
  }

  resetAll(): void {
    this.#windows.clear();
  }

  async charge(key: string, units: number): Promise<void> {
    if (units > 0) this.#window(key).hits += units;
  }

  shutdown(): void {
    clearInterval(this.#sweeper);
  }
}

/** KEYS[1] the counter, ARGV[1] window ms, ARGV[2] units: opens a window or adds to the open one. */
const CHARGE_SCRIPT = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
else
  redis.call('INCRBY', KEYS[1], ARGV[2])
end
return 1
`;

export class RedisCostStore extends RedisStore implements CostStore {
  readonly #redis: Redis;

  constructor(redis: Redis, prefix: string) {
    super({ prefix, sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never });
    this.#redis = redis;
  }

  /**
   * RedisStore loads its scripts once, at init: when Redis was unreachable then, the stored promise stays
   * rejected. Load them again after a failure so the limiter recovers when Redis comes back.
   */
  override async increment(key: string): Promise<IncrementResponse> {
    try {
      return await super.increment(key);
    } catch (err) {
      this.incrementScriptSha = this.loadIncrementScript(key);
      this.incrementScriptSha.catch(() => undefined);
      throw err;
    }
  }

  async charge(key: string, units: number): Promise<void> {
    if (units <= 0) return;
    await this.#redis.eval(CHARGE_SCRIPT, 1, this.prefixKey(key), String(this.windowMs), String(units));
  }
}
