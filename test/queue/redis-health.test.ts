/**
 * Redis stays healthy under big nights (docs/operations.md, "Redis under big nights"), against a private
 * redis-server on a free port whose maxmemory this test sets (never the shared one):
 *  - /readyz of the whole service fails (check redis-memory, memory_high) once Redis holds
 *    REDIS_MEMORY_READY_PCT of its maxmemory, passes below it, and passes again once memory is freed;
 *  - the queue's retention is bounded: completed chunk jobs deleted at once, failed ones by count and age, and the
 *    events stream's cap written where the workers' scripts read it (the queue's meta key).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueRunner } from '../../src/queue/queue-runner.ts';
import { memoryReading } from '../../src/queue/redis-memory.ts';
import { EVENTS_MAX_LEN, KEEP_FAILED, QUEUE_NAME } from '../../src/queue/settings.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { startRedisBinary, uniquePrefix, type OwnedRedis } from '../support/redis.ts';
import { type RunningService, silentLogger, startService, testConfig } from './helpers.ts';

const MAXMEMORY = 24 * 1024 * 1024;
const root = mkdtempSync(join(tmpdir(), 'sor-redis-health-'));
const prefix = uniquePrefix('health');
let redis: OwnedRedis;
let client: Redis;
let service: RunningService;

beforeAll(async () => {
  const owned = await startRedisBinary(undefined, { args: ['--maxmemory', String(MAXMEMORY)] });
  if (owned === undefined) throw new Error('this test needs a redis-server binary (apt-get install redis-server)');
  redis = owned;
  client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  service = await startService(
    testConfig({ REDIS_URL: redis.url, REDIS_PREFIX: prefix, JOBS_DIR: join(root, 'jobs'), BULK_THREADS: '1' }),
  );
}, 60_000);

afterAll(async () => {
  await service?.close();
  client?.disconnect();
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

type Readyz = { status: string; checks: { name: string; ok: boolean; detail?: string }[] };

async function readyz(): Promise<{ status: number; memory: Readyz['checks'][number] }> {
  const res = await fetch(`${service.base}/readyz`);
  const body = (await res.json()) as Readyz;
  return { status: res.status, memory: body.checks.find((c) => c.name === 'redis-memory')! };
}

async function usedPct(): Promise<number> {
  const info = await client.info('memory');
  const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
  return (used / MAXMEMORY) * 100;
}

describe('/readyz before Redis is full', () => {
  it('fails from REDIS_MEMORY_READY_PCT of maxmemory, passes below it and once memory is freed', async () => {
    const before = await readyz();
    expect(before.status).toBe(200);
    expect(before.memory).toMatchObject({ ok: true });
    expect(before.memory.detail).toMatch(/^\d+% of maxmemory \(not ready from 90%\)$/);

    // Fill Redis with 256 kB values to between 91% and 99% of its maxmemory (noeviction: writes beyond it fail).
    const value = Buffer.alloc(256 * 1024, 1);
    let n = 0;
    while ((await usedPct()) < 91) await client.set(`${prefix}:filler:${n++}`, value);
    expect(await usedPct()).toBeLessThan(100);
    const full = await readyz();
    expect(full.status).toBe(503);
    expect(full.memory.ok).toBe(false);
    expect(full.memory.detail).toMatch(/^memory_high: 9\d% of maxmemory \(not ready from 90%\)$/);

    for (let i = 0; i < n; i++) await client.del(`${prefix}:filler:${i}`);
    const freed = await readyz();
    expect(freed.memory.ok).toBe(true);
    expect(freed.status).toBe(200);
  }, 60_000);

  it('reads INFO memory: no maxmemory is no bound; the threshold is a percentage of maxmemory', () => {
    expect(memoryReading('used_memory:900\r\nmaxmemory:0\r\n', 90)).toEqual({ ok: true, detail: 'no maxmemory set' });
    expect(memoryReading('used_memory:899\r\nmaxmemory:1000\r\n', 90).ok).toBe(true);
    expect(memoryReading('used_memory:900\r\nmaxmemory:1000\r\n', 90)).toEqual({
      ok: false,
      detail: 'memory_high: 90% of maxmemory (not ready from 90%)',
    });
  });
});

describe('the queue keeps what it holds bounded', () => {
  it('deletes completed chunk jobs, bounds failed ones by count and age, and caps the events stream', async () => {
    const runner = createQueueRunner({
      config: testConfig({ REDIS_URL: redis.url, REDIS_PREFIX: prefix }),
      logger: silentLogger,
      fallback: createInlineRunner(),
    });
    try {
      expect(runner.queue.defaultJobOptions).toMatchObject({ removeOnComplete: true, removeOnFail: KEEP_FAILED });
      expect(KEEP_FAILED.count).toBeGreaterThan(0);
      expect(KEEP_FAILED.age).toBeGreaterThan(0);
      await runner.queue.waitUntilReady();
      // The workers' scripts trim the stream to the length the queue wrote in its meta key.
      const deadline = Date.now() + 10_000;
      let maxLen: string | null = null;
      while (maxLen === null && Date.now() < deadline) {
        maxLen = await client.hget(`${prefix}:${QUEUE_NAME}:meta`, 'opts.maxLenEvents');
        if (maxLen === null) await new Promise((r) => setTimeout(r, 50));
      }
      expect(maxLen).toBe(String(EVENTS_MAX_LEN));
    } finally {
      await runner.close();
    }
  });
});
