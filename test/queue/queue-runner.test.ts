/**
 * The queue runner against a real Redis, with in-process workers and a transparent runner: chunks travel as
 * BullMQ jobs and come back intact, a refused or failed chunk falls back to the local pool (or errors under
 * BULK_QUEUE_FALLBACK=fail), and an unreachable Redis never loses a chunk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText } from '../../src/bulk/pipeline.ts';
import { startChunkWorker } from '../../src/queue/chunk-worker.ts';
import type { ChunkWorker } from '../../src/queue/chunk-worker.ts';
import { createQueueRunner } from '../../src/queue/queue-runner.ts';
import type { QueueRunner } from '../../src/queue/queue-runner.ts';
import { MAX_PAYLOAD_BYTES } from '../../src/queue/settings.ts';
import { findRedis, freePort, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { expectedReversed, removePrefix, reversingRunner, silentLogger, testConfig } from './helpers.ts';

let redis: TestRedis;
const prefixes: string[] = [];

beforeAll(async () => {
  redis = await findRedis();
});

afterAll(async () => {
  for (const p of prefixes) await removePrefix(redis.url, p);
  await redis.stop();
});

function setup(extra: Record<string, string> = {}) {
  const prefix = uniquePrefix('runner');
  prefixes.push(prefix);
  const config = testConfig({ REDIS_URL: redis.url, REDIS_PREFIX: prefix, ...extra });
  const workerPool = reversingRunner('pool');
  const localPool = reversingRunner('pool');
  return { config, workerPool, localPool };
}

describe('queue runner', () => {
  it('runs chunks on queue workers and returns each output intact, never touching the local pool', async () => {
    const { config, workerPool, localPool } = setup();
    const worker: ChunkWorker = startChunkWorker({ config, logger: silentLogger, runner: workerPool, concurrency: 2 });
    const runner: QueueRunner = createQueueRunner({ config, logger: silentLogger, fallback: localPool });
    try {
      await worker.ready();
      const bound = runner;
      const payloads = Array.from({ length: 12 }, (_, i) => `chunk ${i}\nsecond line ${i} "quoted", ü\n`);
      const outs = await Promise.all(payloads.map((payload, index) => bound.run({ index, payload })));
      outs.forEach((out, i) => {
        expect(out.index).toBe(i);
        expect(outcomeText(out)).toBe(expectedReversed(payloads[i] ?? ''));
        expect(out.rows).toBe(3);
      });
      expect(localPool.calls).toEqual([]);
      expect(workerPool.calls.sort((a, b) => a - b)).toEqual(payloads.map((_, i) => i));
    } finally {
      await runner.close();
      await worker.close();
    }
  });

  it('falls back to the local pool for a payload above the size limit, and for a job that fails on workers', async () => {
    const { config, workerPool, localPool } = setup();
    const worker = startChunkWorker({ config, logger: silentLogger, runner: workerPool, concurrency: 1 });
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: localPool });
    try {
      await worker.ready();
      const big = 'x'.repeat(MAX_PAYLOAD_BYTES + 1);
      const out = await runner.run({ index: 7, payload: big });
      expect(outcomeText(out)).toBe(expectedReversed(big));
      expect(localPool.calls).toEqual([7]);
      expect(workerPool.calls).toEqual([]);

      // A malformed chunk fails on the workers (after its retries) and alone: the next chunk still runs there.
      await expect(runner.run({ index: 8, payload: '!malformed' })).rejects.toThrow(/malformed/);
      expect(localPool.calls).toEqual([7, 8]);
      const next = await runner.run({ index: 9, payload: 'fine' });
      expect(outcomeText(next)).toBe('enif\n');
      expect(workerPool.calls.filter((i) => i === 9)).toEqual([9]);
    } finally {
      await runner.close();
      await worker.close();
    }
  });

  it('with BULK_QUEUE_FALLBACK=fail, a chunk that cannot be queued rejects instead of running locally', async () => {
    const { config, localPool } = setup({ BULK_QUEUE_FALLBACK: 'fail' });
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: localPool });
    try {
      await expect(runner.run({ index: 0, payload: 'x'.repeat(MAX_PAYLOAD_BYTES + 1) })).rejects.toThrow(
        /payload limit/,
      );
      expect(localPool.calls).toEqual([]);
    } finally {
      await runner.close();
    }
  });

  it('runs every chunk on the local pool when Redis is unreachable, and reports not ready', async () => {
    const port = await freePort();
    const { localPool } = setup();
    const config = testConfig({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: uniquePrefix('down') });
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: localPool });
    try {
      const outs = await Promise.all([0, 1, 2].map((index) => runner.run({ index, payload: `p${index}` })));
      expect(outs.map((o) => outcomeText(o))).toEqual(['0p\n', '1p\n', '2p\n']);
      expect(localPool.calls.sort()).toEqual([0, 1, 2]);
      const check = await runner.check();
      expect(check.ok).toBe(false);
      expect(check.detail).toMatch(/unreachable/);
    } finally {
      await runner.close();
    }
  });

  it('reports the Redis version and eviction policy when Redis is healthy', async () => {
    const { config, localPool } = setup();
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: localPool });
    try {
      const check = await runner.check();
      expect(check.version).toMatch(/^\d+\.\d+/);
      expect(check.ok).toBe(check.maxmemoryPolicy === 'noeviction');
    } finally {
      await runner.close();
    }
  });
});
