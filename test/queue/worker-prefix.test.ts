/**
 * The worker reads its key prefix as the API does: REDIS_PREFIX, or the deprecated BULLMQ_PREFIX, which still
 * works but is named in a warning at start-up.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, startWorker } from '../support/processes.ts';
import { deleteKeys, findRedis, uniquePrefix } from '../support/redis.ts';

afterAll(killAll);

describe('queue worker key prefix', () => {
  it('takes the deprecated BULLMQ_PREFIX, with a warning naming REDIS_PREFIX', async () => {
    const redis = await findRedis();
    const prefix = uniquePrefix('old-name');
    try {
      const worker = await startWorker({ REDIS_URL: redis.url, BULLMQ_PREFIX: prefix });
      worker.proc.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(worker.output()).toMatch(/BULLMQ_PREFIX is deprecated, use REDIS_PREFIX/);
      expect(worker.output()).toContain(`"prefix":"${prefix}"`);
    } finally {
      await deleteKeys(redis.url, prefix);
    }
  }, 60_000);

  it('warns nothing with REDIS_PREFIX', async () => {
    const redis = await findRedis();
    const prefix = uniquePrefix('new-name');
    try {
      const worker = await startWorker({ REDIS_URL: redis.url, REDIS_PREFIX: prefix });
      worker.proc.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(worker.output()).not.toMatch(/deprecated/);
      expect(worker.output()).toContain(`"prefix":"${prefix}"`);
    } finally {
      await deleteKeys(redis.url, prefix);
    }
  }, 60_000);
});
