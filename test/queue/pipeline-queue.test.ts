/**
 * The bulk pipeline through the queue, against a real Redis and real worker processes: the output is
 * byte-identical to the embedded default (piscina pool) for the same file, also when a worker is SIGKILLed
 * mid-file, when Redis is unreachable at the start, and when Redis dies mid-file (the test owns that Redis).
 */
import { hostname } from 'node:os';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BulkFormat } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import type { PoolRunner } from '../../src/bulk/runners/pool.ts';
import type { Config } from '../../src/config.ts';
import { createQueueRunner } from '../../src/queue/queue-runner.ts';
import { QUEUE_NAME } from '../../src/queue/settings.ts';
import { killAll, startWorker } from '../support/processes.ts';
import { findRedis, freePort, ownRedis, startRedisBinary, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { makeCsv } from './csv-gen.ts';
import { bulkOutputText, countingFallback, removePrefix, silentLogger, testConfig } from './helpers.ts';

let redis: TestRedis;
let pool: PoolRunner;
const prefixes: { url: string; prefix: string }[] = [];
const STUDENTS = 3000;
const csv = makeCsv(STUDENTS, 7);
const expected: Partial<Record<BulkFormat, string>> = {};

function collect(
  runner: ChunkRunner,
  config: Config,
  format: BulkFormat,
  onProgress?: (chunks: number) => void,
  text: string = csv,
): Promise<string> {
  return bulkOutputText({ body: text, format, runner, config, onProgress: (p) => onProgress?.(p.chunks) });
}

function env(prefix: string, url: string, extra: Record<string, string> = {}): Record<string, string> {
  return { REDIS_URL: url, REDIS_PREFIX: prefix, BULK_CHUNK_STUDENTS: '100', ...extra };
}

function newPrefix(url: string, name: string): string {
  const prefix = uniquePrefix(name);
  prefixes.push({ url, prefix });
  return prefix;
}

beforeAll(async () => {
  redis = await findRedis();
  pool = createPoolRunner({ threads: 2 });
  const config = testConfig({ BULK_CHUNK_STUDENTS: '100' });
  expected.csv = await collect(pool, config, 'csv');
  expected.ndjson = await collect(pool, config, 'ndjson');
});

afterEach(async () => {
  await killAll();
});

afterAll(async () => {
  await killAll();
  await pool?.close();
  for (const { url, prefix } of prefixes) await removePrefix(url, prefix);
  await redis?.stop();
});

describe('bulk pipeline through the queue', () => {
  it.each([
    ['a 1-thread pool', '1', 'pool'],
    ['no pool: QUEUE_WORKER_THREADS=0, chunks computed on its own thread', '0', 'inline'],
  ])(
    'gives byte-identical CSV and NDJSON to the embedded pool, all chunks run by a worker process with %s',
    async (_name, threads, kind) => {
      const prefix = newPrefix(redis.url, 'same');
      const worker = await startWorker(env(prefix, redis.url, { QUEUE_WORKER_THREADS: threads }));
      expect(worker.output()).toContain(`"threads":${threads},"runner":"${kind}","msg":"worker: ready for chunk jobs"`);
      const config = testConfig(env(prefix, redis.url));
      const local = countingFallback(pool);
      const runner = createQueueRunner({ config, logger: silentLogger, fallback: local });
      try {
        expect(await collect(runner, config, 'csv')).toBe(expected.csv);
        expect(await collect(runner, config, 'ndjson')).toBe(expected.ndjson);
        expect(local.calls).toBe(0);
      } finally {
        await runner.close();
      }
    },
  );

  it('completes with identical output when a worker holding a job is SIGKILLed (another worker recovers it)', async () => {
    const prefix = newPrefix(redis.url, 'kill');
    const tuning = { QUEUE_LOCK_DURATION_MS: '2000', QUEUE_STALLED_INTERVAL_MS: '1000' };
    const victim = await startWorker(env(prefix, redis.url, tuning));
    const survivor = await startWorker(env(prefix, redis.url, tuning));
    const config = testConfig(env(prefix, redis.url));
    const local = countingFallback(pool);
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: local });
    const queue = new Queue(QUEUE_NAME, { connection: { url: redis.url }, prefix });
    const victimName = `${hostname()}:${victim.proc.pid}`;
    let killed = false;
    // Kill the victim the moment it is seen holding an active job.
    const hunter = (async () => {
      while (!killed) {
        const active = await queue.getActive();
        if (active.some((j) => j.processedBy === victimName)) {
          victim.proc.kill('SIGKILL');
          killed = true;
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      const out = await collect(runner, config, 'csv');
      killed = true;
      await hunter;
      expect(await victim.exited).toBe('SIGKILL');
      expect(out).toBe(expected.csv);
      // Nothing ran locally: the killed worker's job was recovered by the survivor through the queue.
      expect(local.calls).toBe(0);
      // The survivor is still running: its log lines reach stdout in batches (src/logger.ts, at most ~200 ms late).
      await expect.poll(() => survivor.output()).toMatch(/recovered a stalled chunk job/);
    } finally {
      killed = true;
      await runner.close();
      await queue.close();
    }
  });

  it('runs the whole file on the local pool with identical output when Redis is unreachable at the start', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const config = testConfig(env(uniquePrefix('down'), url));
    const local = countingFallback(pool);
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: local });
    try {
      expect(await collect(runner, config, 'csv')).toBe(expected.csv);
      expect(local.calls).toBe(STUDENTS / 100);
    } finally {
      await runner.close();
    }
  });

  it('when Redis dies mid-file: completes identically (fallback local) or marks the lost chunks as error rows (fail)', async () => {
    for (const fallback of ['local', 'fail'] as const) {
      const own = await ownRedis();
      const prefix = newPrefix(own.url, `lost-${fallback}`);
      await startWorker(env(prefix, own.url));
      const config = testConfig(env(prefix, own.url, { BULK_QUEUE_FALLBACK: fallback }));
      const local = countingFallback(pool);
      const runner = createQueueRunner({ config, logger: silentLogger, fallback: local });
      let stopped: Promise<void> | undefined;
      try {
        const out = await collect(runner, config, 'csv', (chunks) => {
          if (chunks >= 3) stopped ??= own.stop();
        });
        await stopped;
        expect(stopped).toBeDefined();
        const lines = out.trimEnd().split('\n');
        expect(lines.length).toBe((expected.csv ?? '').trimEnd().split('\n').length);
        if (fallback === 'local') {
          expect(out).toBe(expected.csv);
          expect(local.calls).toBeGreaterThan(0);
        } else {
          expect(local.calls).toBe(0);
          expect(out).toMatch(/,error,internal_error,/);
          // Every row is accounted for, in order: the student ids match the embedded output line by line.
          const ids = (s: string) =>
            s
              .trimEnd()
              .split('\n')
              .map((l) => l.split(',')[0]);
          expect(ids(out)).toEqual(ids(expected.csv ?? ''));
        }
      } finally {
        await runner.close();
        await killAll();
        await own.stop();
      }
    }
  });
  it('survives a Redis restart: the worker and the API go back to the queue once Redis is back', async () => {
    const first = await startRedisBinary();
    if (!first)
      throw new Error('this test needs a redis-server binary it can stop and start (apt-get install redis-server)');
    let current = first;
    const prefix = newPrefix(first.url, 'restart');
    const worker = await startWorker(env(prefix, first.url));
    const config = testConfig(env(prefix, first.url, { QUEUE_CHUNK_TIMEOUT_MS: '5000' }));
    const local = countingFallback(pool);
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: local });
    try {
      expect(await collect(runner, config, 'csv')).toBe(expected.csv);
      expect(local.calls).toBe(0);

      await first.stop();
      const again = await startRedisBinary(first.port);
      if (!again) throw new Error('redis-server could not be restarted');
      current = again;

      // Both sides reconnect on their own (backoff up to 5 s); probe with one chunk until it goes through the queue.
      const probe = runner;
      let viaQueue = false;
      for (let i = 0; i < 60 && !viaQueue; i++) {
        const before = local.calls;
        await collect(probe, config, 'csv', undefined, makeCsv(150, i)).catch(() => undefined);
        viaQueue = local.calls === before;
        if (!viaQueue) await new Promise((r) => setTimeout(r, 500));
      }
      expect(viaQueue).toBe(true);
      const calls = local.calls;
      expect(await collect(runner, config, 'csv')).toBe(expected.csv);
      expect(local.calls).toBe(calls);
      expect(worker.proc.exitCode).toBeNull();
    } finally {
      await runner.close();
      await killAll();
      await current.stop();
    }
  });
});
