/**
 * The whole service with REDIS_URL set, in-process (createRuntime + createApp) with one real worker process:
 * bulk requests go through the queue, async jobs live in Redis, /readyz checks Redis, /metrics and bull-board
 * are served, the OpenAPI document lists /v1/jobs. Plus the Redis discipline checks (eviction policy refused by
 * /readyz and by the worker) and the worker's graceful drain on SIGTERM.
 */
import { hostname } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { outcomeText, runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import type { PoolRunner } from '../../src/bulk/runners/pool.ts';
import { checkRedisServer } from '../../src/redis.ts';
import { createQueueRunner } from '../../src/queue/queue-runner.ts';
import { QUEUE_NAME } from '../../src/queue/settings.ts';
import { killAll, spawnNode, startWorker } from '../support/processes.ts';
import { findRedis, ownRedis, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { makeCsv } from './csv-gen.ts';
import {
  bulkOutputText,
  countingFallback,
  removePrefix,
  type RunningService,
  silentLogger,
  startService,
  testConfig,
} from './helpers.ts';

let redis: TestRedis;
let pool: PoolRunner;
const prefixes: string[] = [];
const csv = makeCsv(2500, 11);

function newPrefix(name: string): string {
  const p = uniquePrefix(name);
  prefixes.push(p);
  return p;
}

function embedded(format: 'csv' | 'ndjson'): Promise<string> {
  return bulkOutputText({
    body: csv,
    format,
    runner: { small: createInlineRunner(), large: pool },
    config: testConfig({ BULK_CHUNK_STUDENTS: '200' }),
  });
}

beforeAll(async () => {
  redis = await findRedis();
  pool = createPoolRunner({ threads: 2 });
});

afterAll(async () => {
  await killAll();
  await pool?.close();
  for (const prefix of prefixes) await removePrefix(redis.url, prefix);
  await redis?.stop();
});

describe('the service with Redis', () => {
  let service: RunningService;
  let base: string;
  const prefix = newPrefix('svc');
  const env = { REDIS_URL: '', REDIS_PREFIX: prefix, BULK_CHUNK_STUDENTS: '200', BULK_SYNC_MAX_ROWS: '100' };

  beforeAll(async () => {
    env.REDIS_URL = redis.url;
    await startWorker(env);
    service = await startService(testConfig({ ...env, ADMIN_TOKEN: 'sekret', BULK_THREADS: '1' }));
    base = service.base;
  });

  afterAll(async () => {
    await service?.close();
  });

  it('runs a large bulk request through the queue with the embedded output', async () => {
    const res = await fetch(`${base}/v1/calculate/bulk`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: csv,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-bulk-runner')).toBe('queue');
    expect(await res.text()).toBe(await embedded('csv'));
  });

  it('keeps async jobs in Redis and returns the same output as the bulk endpoint', async () => {
    const submitted = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv', Accept: 'application/x-ndjson' },
      body: csv,
    });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };
    let job: { status: string } = { status: '' };
    for (let i = 0; i < 600 && job.status !== 'completed' && job.status !== 'failed'; i++) {
      job = (await (await fetch(`${base}/v1/jobs/${id}`)).json()) as { status: string };
      if (job.status !== 'completed') await new Promise((r) => setTimeout(r, 50));
    }
    expect(job).toMatchObject({ status: 'completed' });
    const client = new Redis(redis.url);
    try {
      expect(await client.hget(`${prefix}:job:${id}`, 'status')).toBe('completed');
      expect(await client.llen(`${prefix}:job:${id}:result`)).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
    expect(await (await fetch(`${base}/v1/jobs/${id}/result`)).text()).toBe(await embedded('ndjson'));
  });

  it('/readyz checks Redis (version, noeviction); /metrics exposes the queue and bulk metrics', async () => {
    const ready = await fetch(`${base}/readyz`);
    const body = (await ready.json()) as { checks: { name: string; ok: boolean; detail?: string }[] };
    expect(ready.status).toBe(200);
    const check = body.checks.find((c) => c.name === 'redis');
    expect(check?.ok).toBe(true);
    // A state, never the address: the probe is anonymous.
    expect(check?.detail).toBe('ready');

    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^sor_bulk_rows_processed_total [1-9]\d*/m);
    expect(metrics).toMatch(/^sor_bulk_students_processed_total [1-9]\d*/m);
    expect(metrics).toMatch(/^sor_bulk_chunk_duration_seconds_count\{runner="queue",outcome="ok"\} [1-9]/m);
    expect(metrics).toMatch(/^sor_queue_jobs\{state="waiting"\} \d+/m);
    expect(metrics).toMatch(/^sor_async_jobs\{status="completed"\} [1-9]/m);
    expect(metrics).toMatch(/^sor_async_job_transitions_total\{status="completed"\} [1-9]/m);
  });

  it('serves bull-board at /admin/queues behind ADMIN_TOKEN, and documents /v1/jobs in the OpenAPI', async () => {
    expect((await fetch(`${base}/admin/queues`)).status).toBe(401);
    expect((await fetch(`${base}/admin/queues`, { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    const ok = await fetch(`${base}/admin/queues`, { headers: { Authorization: 'Bearer sekret' } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/<html/i);
    const basic = Buffer.from('admin:sekret').toString('base64');
    const api = await fetch(`${base}/admin/queues/api/queues`, { headers: { Authorization: `Basic ${basic}` } });
    expect(api.status).toBe(200);
    expect(JSON.stringify(await api.json())).toContain(QUEUE_NAME);

    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/jobs', '/v1/jobs/{id}', '/v1/jobs/{id}/result']),
    );
  });
});

describe('Redis discipline', () => {
  afterEach(killAll);
  it('refuses a Redis that may evict keys: /readyz says why and the worker does not start', async () => {
    const own = await ownRedis();
    const client = new Redis(own.url);
    try {
      await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const check = await checkRedisServer(client);
      expect(check.ok).toBe(false);
      expect(check.detail).toMatch(/maxmemory-policy is "allkeys-lru": it must be "noeviction"/);

      const worker = spawnNode('workers/queue.worker.ts', {
        REDIS_URL: own.url,
        REDIS_PREFIX: 'x',
        BULK_THREADS: '1',
      });
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toMatch(/refusing to start: Redis maxmemory-policy is \\"allkeys-lru\\"/);
    } finally {
      client.disconnect();
      await own.stop();
    }
  });
});

describe('worker graceful shutdown', () => {
  afterEach(killAll);
  it('on SIGTERM finishes the chunk it holds, stores its output and exits 0', async () => {
    const prefix = newPrefix('term');
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix };
    const worker = await startWorker(env);
    const config = testConfig(env);
    const local = countingFallback(pool);
    const runner = createQueueRunner({ config, logger: silentLogger, fallback: local });
    const queue = new Queue(QUEUE_NAME, { connection: { url: redis.url }, prefix });
    try {
      // One big chunk (all students of the file) keeps the worker busy long enough to be caught holding it.
      const payloads: string[] = [];
      const grab = new Writable({ write: (_c, _e, cb) => cb() });
      const capture: ChunkRunner = {
        kind: 'pool',
        async run(task) {
          payloads.push(task.payload);
          return pool.run(task);
        },
        close: async () => undefined,
      };
      await runBulk({
        input: Readable.from([Buffer.from(makeCsv(6000, 5))]),
        output: grab,
        format: 'csv',
        runner: capture,
        config: testConfig({ BULK_CHUNK_STUDENTS: '6000' }),
      });
      const payload = payloads[0] as string;
      const expected = await pool.run({ index: 0, payload });
      const pending = runner.run({ index: 0, payload });
      const name = `${hostname()}:${worker.proc.pid}`;
      for (let i = 0; i < 500; i++) {
        if ((await queue.getActive()).some((j) => j.processedBy === name)) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      worker.proc.kill('SIGTERM');
      const out = await pending;
      expect(outcomeText(out)).toBe(outcomeText(expected));
      expect(local.calls).toBe(0);
      expect(await worker.exited).toBe(0);
      expect(worker.output()).toMatch(/draining in-flight jobs/);
      expect(worker.output()).toMatch(/"chunks":1,.*"msg":"worker: stopped"/);
    } finally {
      await runner.close();
      await queue.close();
    }
  });
});
