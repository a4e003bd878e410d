/**
 * Graceful shutdown of the API process (src/server.ts) with the queue: on SIGTERM a bulk response in flight is
 * completed (identical to the embedded output), a running async job is drained to completion in Redis, the
 * Redis connections are released and the process exits 0.
 */
import { Readable, Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBulk } from '../../src/bulk/pipeline.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import { RedisJobStore } from '../../src/jobs/redis-job-store.ts';
import { killAll, spawnNode, startWorker } from '../support/processes.ts';
import { findRedis, freePort, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { makeCsv } from './csv-gen.ts';
import { removePrefix, testConfig } from './helpers.ts';

let redis: TestRedis;
const prefix = uniquePrefix('shutdown');
const bulkCsv = makeCsv(4000, 13);
const jobCsv = makeCsv(3000, 17);

async function embedded(csv: string): Promise<string> {
  const pool = createPoolRunner({ threads: 2 });
  const parts: Buffer[] = [];
  try {
    await runBulk({
      input: Readable.from([Buffer.from(csv)]),
      output: new Writable({
        write(c: Buffer, _e, cb) {
          parts.push(c);
          cb();
        },
      }),
      format: 'csv',
      runner: { small: createInlineRunner(), large: pool },
      config: testConfig({ BULK_CHUNK_STUDENTS: '100' }),
    });
  } finally {
    await pool.close();
  }
  return Buffer.concat(parts).toString('utf8');
}

beforeAll(async () => {
  redis = await findRedis();
});

afterAll(async () => {
  await killAll();
  await removePrefix(redis.url, prefix);
  await redis?.stop();
});

describe('API graceful shutdown with the queue', () => {
  it('finishes the bulk response in flight and drains the async job, then exits 0', async () => {
    const env = {
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      BULK_CHUNK_STUDENTS: '100',
      BULK_SYNC_MAX_ROWS: '10',
      BULK_THREADS: '1',
    };
    await startWorker(env);
    const port = await freePort();
    const api = spawnNode('src/server.ts', { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    await api.waitFor(/"msg":"listening"/);
    const base = `http://127.0.0.1:${port}`;

    const submitted = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: jobCsv,
    });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };

    const bulk = await fetch(`${base}/v1/calculate/bulk`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: bulkCsv,
    });
    expect(bulk.status).toBe(200);
    // Headers are in: the request is in flight. Now ask the server to stop.
    api.proc.kill('SIGTERM');
    const body = await bulk.text();

    expect(await api.exited).toBe(0);
    expect(body).toBe(await embedded(bulkCsv));
    expect(api.output()).toMatch(/"msg":"stopped"/);

    const client = new Redis(redis.url);
    try {
      const job = await new RedisJobStore(client, prefix, 60).get(id);
      expect(job?.status).toBe('completed');
      expect(job?.students_done).toBe(3000);
    } finally {
      client.disconnect();
    }
  });
});
