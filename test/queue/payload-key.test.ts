/**
 * A chunk's payload travels in its own Redis key (chunkPayloadKey), as raw bytes, and only its MAC in the job's
 * data. Against a real Redis, with in-process workers and a transparent runner:
 *  - the job's data is the MAC alone; the payload key holds the payload's exact UTF-8 bytes, with a TTL;
 *  - once the chunk's outcome is in (completed, or failed and recomputed locally) the key is gone;
 *  - payload bytes changed in Redis are refused by the worker (never computed) and the API recomputes the chunk;
 *  - a job whose payload key is gone fails at once, without retries.
 */
import { Queue, QueueEvents } from 'bullmq';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText } from '../../src/bulk/pipeline.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../../src/bulk/runner.ts';
import { ChunkSigner } from '../../src/queue/chunk-signing.ts';
import type { ChunkJobData } from '../../src/queue/chunk-signing.ts';
import type { ChunkJobReturn } from '../../src/queue/chunk-completions.ts';
import { startChunkWorker } from '../../src/queue/chunk-worker.ts';
import { createQueueRunner } from '../../src/queue/queue-runner.ts';
import { QUEUE_NAME, chunkPayloadKey, payloadTtlSeconds } from '../../src/queue/settings.ts';
import { TEST_SIGNING_KEY } from '../support/processes.ts';
import { findRedis, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { expectedReversed, removePrefix, reversingRunner, silentLogger, testConfig } from './helpers.ts';

let redis: TestRedis;
let client: Redis;
const prefixes: string[] = [];

beforeAll(async () => {
  redis = await findRedis();
  client = new Redis(redis.url);
});

afterAll(async () => {
  client.disconnect();
  for (const p of prefixes) await removePrefix(redis.url, p);
  await redis.stop();
});

function setup() {
  const prefix = uniquePrefix('payload');
  prefixes.push(prefix);
  const config = testConfig({ REDIS_URL: redis.url, REDIS_PREFIX: prefix });
  return { prefix, config };
}

async function payloadKeys(prefix: string): Promise<string[]> {
  return client.keys(`${prefix}:${QUEUE_NAME}:payload:*`);
}

/** A worker-side runner that waits for `gate` before running (so a test can look at Redis mid-chunk). */
function gatedRunner(inner: ChunkRunner, gate: Promise<void>, onStart: (task: ChunkTask) => void): ChunkRunner {
  return {
    kind: 'pool',
    async run(task: ChunkTask): Promise<ChunkOutput> {
      onStart(task);
      await gate;
      return inner.run(task);
    },
    close: async () => undefined,
  };
}

describe('chunk payload key', () => {
  it('holds the raw payload bytes with a TTL while the chunk runs, and is gone once its output is in', async () => {
    const { prefix, config } = setup();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started!: (task: ChunkTask) => void;
    const running = new Promise<ChunkTask>((resolve) => (started = resolve));
    const worker = startChunkWorker({
      config,
      logger: silentLogger,
      runner: gatedRunner(reversingRunner(), gate, (t) => started(t)),
      concurrency: 1,
    });
    const local = reversingRunner();
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: local });
    const queue = new Queue<ChunkJobData>(QUEUE_NAME, { connection: client, prefix });
    try {
      await worker.ready();
      const payload = 'line one "quoted", ü\nline two €\n';
      // As the pipeline hands it: UTF-8 bytes on a SharedArrayBuffer, the string only through a getter.
      const shared = new Uint8Array(new SharedArrayBuffer(64), 3, Buffer.byteLength(payload));
      shared.set(Buffer.from(payload, 'utf8'));
      const out = runner.run({ index: 4, runId: 'r00000000000000000000000a', payloadBytes: shared, payload });
      const task = await running;
      // The worker's runner gets the bytes on a SharedArrayBuffer (a pool thread reads them without a copy).
      expect(task.payloadBytes?.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(task.payload).toBe(payload);

      const jobId = 'r00000000000000000000000a.c4';
      const key = chunkPayloadKey(prefix, jobId);
      expect(await payloadKeys(prefix)).toEqual([key]);
      expect(await client.getBuffer(key)).toEqual(Buffer.from(payload, 'utf8'));
      const ttl = await client.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(payloadTtlSeconds(config));
      // The job's data is the payload's MAC only: no payload text in the job hash.
      const job = (await queue.getJob(jobId)) as Job<ChunkJobData>;
      expect(Object.keys(job.data)).toEqual(['mac']);
      expect(job.data.mac).toBe(new ChunkSigner(TEST_SIGNING_KEY).payloadMac(jobId, payload));

      open();
      expect(outcomeText(await out)).toBe(expectedReversed(payload));
      expect(local.calls).toEqual([]);
      expect(await payloadKeys(prefix)).toEqual([]);
    } finally {
      open();
      await queue.close();
      await runner.close();
      await worker.close();
    }
  });

  it('payload bytes changed in Redis are refused by the worker and the chunk is recomputed locally', async () => {
    const { prefix, config } = setup();
    const workerRunner = reversingRunner();
    const worker = startChunkWorker({ config, logger: silentLogger, runner: workerRunner, concurrency: 1 });
    await worker.close(); // Not running yet: the chunk waits in the queue while its payload is changed.
    const local = reversingRunner();
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: local });
    let second: ReturnType<typeof startChunkWorker> | undefined;
    try {
      const payload = 'the honest chunk\n';
      const out = runner.run({ index: 0, runId: 'r00000000000000000000000b', payload });
      const key = chunkPayloadKey(prefix, 'r00000000000000000000000b.c0');
      for (let i = 0; i < 400 && (await client.exists(key)) === 0; i++) await new Promise((r) => setTimeout(r, 5));
      // One flipped bit, same length, TTL kept.
      const stored = (await client.getBuffer(key)) as Buffer;
      stored[0]! ^= 0x20;
      await client.set(key, stored, 'KEEPTTL');
      second = startChunkWorker({ config, logger: silentLogger, runner: workerRunner, concurrency: 1 });
      const result = await out;
      // The client gets the honest chunk's output, computed on the local pool; the worker computed nothing.
      expect(outcomeText(result)).toBe(expectedReversed(payload));
      expect(local.calls).toEqual([0]);
      expect(workerRunner.calls).toEqual([]);
      const job = await new Queue(QUEUE_NAME, { connection: client, prefix }).getJob('r00000000000000000000000b.c0');
      expect(job?.failedReason).toMatch(/integrity check/);
      expect(job?.attemptsMade).toBe(1);
      // Deleted (best effort, after the local run) on the API's connection: wait for that command to land.
      for (let i = 0; i < 400 && (await payloadKeys(prefix)).length > 0; i++)
        await new Promise((r) => setTimeout(r, 5));
      expect(await payloadKeys(prefix)).toEqual([]);
    } finally {
      await runner.close();
      await second?.close();
    }
  });

  it('a job whose payload key is gone fails at once, alone and without retries', async () => {
    const { prefix, config } = setup();
    const workerRunner = reversingRunner();
    const worker = startChunkWorker({ config, logger: silentLogger, runner: workerRunner, concurrency: 1 });
    const queue = new Queue<ChunkJobData, ChunkJobReturn>(QUEUE_NAME, { connection: client, prefix });
    const events = new QueueEvents(QUEUE_NAME, { connection: { url: redis.url }, prefix });
    try {
      await Promise.all([worker.ready(), events.waitUntilReady()]);
      const jobId = 'r00000000000000000000000c.c0';
      const job = await queue.add('chunk', new ChunkSigner(TEST_SIGNING_KEY).signPayload(jobId, 'gone\n'), {
        jobId,
        attempts: 3,
      });
      await expect(job.waitUntilFinished(events, 20_000)).rejects.toThrow(/payload missing/);
      const failed = await queue.getJob(jobId);
      expect(failed?.attemptsMade).toBe(1);
      expect(workerRunner.calls).toEqual([]);
    } finally {
      await events.close();
      await queue.close();
      await worker.close();
    }
  });
});
