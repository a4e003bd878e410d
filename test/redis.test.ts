/**
 * src/redis.ts, the one place that decides Redis: none without REDIS_URL; one shared fail-fast connection per
 * process, blocking connections apart; all of them ended by close().
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { redisFromConfig } from '../src/redis.ts';
import { TEST_SIGNING_KEY } from './support/processes.ts';
import { findRedis, uniquePrefix } from './support/redis.ts';

describe('redisFromConfig', () => {
  it('gives no Redis without REDIS_URL', () => {
    expect(redisFromConfig(loadConfig({}))).toBeUndefined();
  });

  it('makes one shared connection and separate blocking ones, under REDIS_PREFIX, and ends them all on close', async () => {
    const { url } = await findRedis();
    const prefix = uniquePrefix('factory');
    const redis = redisFromConfig(
      loadConfig({ REDIS_URL: url, REDIS_PREFIX: prefix, QUEUE_SIGNING_KEY: TEST_SIGNING_KEY }),
    );
    if (!redis) throw new Error('expected a Redis with REDIS_URL set');
    expect(redis.prefix).toBe(prefix);
    const shared = redis.shared();
    expect(redis.shared()).toBe(shared);
    const blocking = redis.blocking('sor-test-blocking');
    expect(blocking).not.toBe(shared);
    expect(blocking.options.maxRetriesPerRequest).toBeNull();
    expect(shared.options.enableOfflineQueue).toBe(false);
    expect((await redis.check()).ok).toBe(true);
    expect(await blocking.ping()).toBe('PONG');

    await redis.close();
    expect([shared.status, blocking.status]).toEqual(['end', 'end']);
    expect(() => redis.blocking('too-late')).toThrow(/closed/);
  });

  it('hides the password of the URL in what it logs', () => {
    const redis = redisFromConfig(
      loadConfig({ REDIS_URL: 'redis://user:s3cret-pass@127.0.0.1:1', QUEUE_SIGNING_KEY: TEST_SIGNING_KEY }),
    );
    expect(redis?.where).not.toContain('s3cret-pass');
    expect(redis?.redact('failed at redis://user:s3cret-pass@127.0.0.1:1')).not.toContain('s3cret-pass');
  });
});
