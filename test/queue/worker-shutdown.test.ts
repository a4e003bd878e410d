/**
 * A queue worker asked to stop while Redis is down: its drain can never finish (nothing can be stored, no lock
 * given up), so it exits after QUEUE_WORKER_SHUTDOWN_GRACE_MS instead of waiting for a second signal.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, startWorker } from '../support/processes.ts';
import { startRedisBinary, uniquePrefix } from '../support/redis.ts';

afterAll(killAll);

describe('queue worker on SIGTERM', () => {
  it('with Redis down, exits 1 after its grace period with a line saying why', async () => {
    const own = await startRedisBinary();
    if (!own) throw new Error('this test needs the redis-server binary (it stops its own Redis)');
    let stopped = false;
    try {
      const worker = await startWorker({
        REDIS_URL: own.url,
        REDIS_PREFIX: uniquePrefix('worker-grace'),
        QUEUE_WORKER_SHUTDOWN_GRACE_MS: '1500',
        LOG_LEVEL: 'debug',
      });
      await own.stop();
      stopped = true;
      // Signalled once the worker knows Redis is gone (before that, its close can still end cleanly).
      await worker.waitFor(/Redis connection error/, 15_000);
      const sent = Date.now();
      worker.proc.kill('SIGTERM');
      const code = await worker.exited;
      const tookMs = Date.now() - sent;
      expect(code).toBe(1);
      expect(worker.output()).toMatch(/did not finish within the grace period/);
      expect(tookMs).toBeGreaterThanOrEqual(1400);
    } finally {
      if (!stopped) await own.stop();
    }
  }, 60_000);

  it('with Redis up and nothing in flight, exits 0 at once', async () => {
    const own = await startRedisBinary();
    if (!own) throw new Error('this test needs the redis-server binary');
    try {
      const worker = await startWorker({
        REDIS_URL: own.url,
        REDIS_PREFIX: uniquePrefix('worker-grace'),
        QUEUE_WORKER_SHUTDOWN_GRACE_MS: '20000',
      });
      worker.proc.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(worker.output()).not.toMatch(/grace period/);
    } finally {
      await own.stop();
    }
  }, 60_000);
});
