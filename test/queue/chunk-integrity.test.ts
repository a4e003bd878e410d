/**
 * Chunks in Redis cannot change a student's dollars: through the real service (createRuntime + createApp, as
 * server.ts assembles it) on a real Redis under a per-run prefix,
 *  - a waiting chunk whose payload bytes were rewritten in Redis, and its job's MAC with bull-board's own
 *    update-data (dashboard in read-write mode), is refused by a real worker process and recomputed by the API:
 *    the client gets examples.json's figures;
 *  - a stored chunk output that was changed after the worker signed it is discarded and recomputed;
 *  - chunk job ids carry neither the request id nor the async job id;
 *  - a chunk output waits in Redis at most RESULT_TTL_SECONDS and is gone once the API has read it.
 * Expected figures come from examples.json (test/bulk/examples.ts), never from the code.
 */
import { Queue, QueueEvents, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkOutput } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { ChunkSigner } from '../../src/queue/chunk-signing.ts';
import type { ChunkJobData } from '../../src/queue/chunk-signing.ts';
import { startChunkWorker } from '../../src/queue/chunk-worker.ts';
import type { ChunkJobReturn } from '../../src/queue/chunk-completions.ts';
import { QUEUE_NAME, RESULT_TTL_SECONDS, chunkPayloadKey, chunkResultKey } from '../../src/queue/settings.ts';
import { EXAMPLES, examplesCsv, expectRowsMatchExample } from '../bulk/examples.ts';
import { parseOutput } from '../bulk/helpers.ts';
import { type RunningService, removePrefix, silentLogger, startService, testConfig } from './helpers.ts';
import { TEST_SIGNING_KEY, killAll, startWorker } from '../support/processes.ts';
import { findRedis, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';

const ADMIN = 'admin-token-for-the-integrity-test-0123456789';
const inline = createInlineRunner();
let redis: TestRedis;
const prefixes: string[] = [];

beforeAll(async () => {
  redis = await findRedis();
});

afterEach(killAll);

afterAll(async () => {
  for (const p of prefixes) await removePrefix(redis.url, p);
  await inline.close();
  await redis.stop();
});

interface Harness {
  prefix: string;
  service: RunningService;
  queue: Queue<ChunkJobData, ChunkJobReturn>;
  close(): Promise<void>;
}

async function start(): Promise<Harness> {
  const prefix = uniquePrefix('integrity');
  prefixes.push(prefix);
  const service = await startService(
    testConfig({
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      // Every file goes to the queue, in one chunk.
      BULK_SYNC_MAX_ROWS: '0',
      BULK_THREADS: '1',
      ADMIN_TOKEN: ADMIN,
      ADMIN_READ_ONLY: 'false',
    }),
  );
  const queue = new Queue<ChunkJobData, ChunkJobReturn>(QUEUE_NAME, { connection: { url: redis.url }, prefix });
  return {
    prefix,
    service,
    queue,
    async close() {
      await service.close();
      await queue.close();
    },
  };
}

async function eventually<T>(fn: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function outputText(out: ChunkOutput): string {
  return out.bytes ? Buffer.from(out.bytes).toString('utf8') : out.text;
}

/** The same chunk with the first student's first row at half its credits: other dollars for that student. */
function tamper(payload: string): string {
  const p = JSON.parse(payload) as { h: string[]; s: { c: (string | string[])[] }[] };
  const col = p.h.indexOf('credits_enrolled');
  const student = p.s[0];
  if (col < 0 || !student) throw new Error('unexpected payload shape');
  const row = student.c[0];
  const cells = typeof row === 'string' ? row.split(',') : [...(row ?? [])];
  cells[col] = String(Math.max(1, Math.floor(Number(cells[col]) / 2)));
  student.c[0] = cells;
  return JSON.stringify(p);
}

/** The tampered chunk really gives other figures: without the integrity check these would reach the client. */
async function expectTamperingChangesDollars(payload: string, tampered: string): Promise<void> {
  const honest = outputText(await inline.run({ index: 0, payload }));
  const forged = outputText(await inline.run({ index: 0, payload: tampered }));
  expect(forged).not.toBe(honest);
}

function expectExampleFigures(csv: string): void {
  const rows = parseOutput(csv);
  expect(rows.length).toBe(EXAMPLES.reduce((n, ex) => n + ex.request.terms.length, 0));
  for (const ex of EXAMPLES) {
    expectRowsMatchExample(
      rows.filter((r) => r.student_id === ex.id),
      ex,
    );
  }
}

async function metricsText(base: string): Promise<string> {
  return (await fetch(`${base}/metrics`)).text();
}

describe('chunk integrity through the real service', () => {
  it('a waiting chunk rewritten in Redis and through bull-board is refused by the worker and recomputed by the API', async () => {
    const h = await start();
    const writer = new Redis(redis.url);
    try {
      const bulk = fetch(`${h.service.base}/v1/calculate/bulk`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv', 'X-Request-Id': 'visible-request-id-42' },
        body: examplesCsv(),
      });
      const job = await eventually(async () => (await h.queue.getWaiting())[0], 'the bulk chunk');
      const jobId = String(job.id);
      // The chunk job id is a random run id: nothing of the request id.
      expect(jobId).toMatch(/^r[0-9a-f]{24}\.c0$/);
      expect(jobId).not.toContain('visible-request-id-42');

      // The payload's bytes wait in their own key; the job's data is their MAC.
      const payloadKey = chunkPayloadKey(h.prefix, jobId);
      const payload = ((await writer.getBuffer(payloadKey)) as Buffer).toString('utf8');
      const tampered = tamper(payload);
      await expectTamperingChangesDollars(payload, tampered);
      await writer.set(payloadKey, tampered, 'KEEPTTL');
      // And the MAC rewritten through bull-board, as someone without the signing key would sign it.
      const forgedMac = new ChunkSigner('a guessed key of at least thirty-two characters').payloadMac(jobId, tampered);
      const patch = await fetch(
        `${h.service.base}/admin/queues/api/queues/${QUEUE_NAME}/${encodeURIComponent(jobId)}/update-data`,
        {
          method: 'PATCH',
          headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ jobData: { mac: forgedMac } }),
        },
      );
      expect(patch.status).toBe(200);
      expect((await h.queue.getJob(jobId))?.data.mac).toBe(forgedMac);

      // An async job's chunk ids do not carry the job's id either.
      const submitted = await fetch(`${h.service.base}/v1/jobs`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv' },
        body: examplesCsv(),
      });
      expect(submitted.status).toBe(202);
      const asyncId = ((await submitted.json()) as { id: string }).id;
      const second = await eventually(
        async () => (await h.queue.getWaiting()).find((j) => j.id !== jobId),
        "the async job's chunk",
      );
      expect(String(second.id)).toMatch(/^r[0-9a-f]{24}\.c0$/);
      expect(String(second.id)).not.toContain(asyncId);
      expect(String(second.id).slice(0, 25)).not.toBe(jobId.slice(0, 25));

      const worker = await startWorker({ REDIS_URL: redis.url, REDIS_PREFIX: h.prefix });
      const res = await bulk;
      expect(res.status).toBe(200);
      expectExampleFigures(await res.text());
      // The worker is still running: its log lines reach stdout in batches (src/logger.ts, at most ~200 ms late).
      await expect.poll(() => worker.output()).toMatch(/chunk payload failed its integrity check/);
      expect(await metricsText(h.service.base)).toMatch(
        /^sor_queue_fallback_chunks_total\{reason="job_failed"\} [1-9]/m,
      );

      // The untouched async job ran on the worker and is right too.
      await eventually(async () => {
        const s = (await (await fetch(`${h.service.base}/v1/jobs/${asyncId}`)).json()) as { status: string };
        return s.status === 'completed' ? true : undefined;
      }, 'the async job');
      const result = await fetch(`${h.service.base}/v1/jobs/${asyncId}/result`, { headers: { Accept: 'text/csv' } });
      expectExampleFigures(await result.text());
    } finally {
      writer.disconnect();
      await h.close();
    }
  });

  it('a chunk output changed in Redis after the worker signed it is discarded and recomputed', async () => {
    const h = await start();
    const signer = new ChunkSigner(TEST_SIGNING_KEY);
    const writer = new Redis(redis.url);
    let forgedStored = 0;
    // An honest worker (it signs the true output), but what sits in Redis is another chunk's figures, as if
    // someone with access to Redis had rewritten the key before the API read it.
    const worker = new Worker<ChunkJobData, ChunkJobReturn>(
      QUEUE_NAME,
      async (job: Job<ChunkJobData, ChunkJobReturn>) => {
        const jobId = String(job.id);
        const payload = ((await writer.getBuffer(chunkPayloadKey(h.prefix, jobId))) as Buffer).toString('utf8');
        const honest = await inline.run({ index: 0, payload });
        const honestBytes = Buffer.from(outputText(honest), 'utf8');
        const tampered = tamper(payload);
        await expectTamperingChangesDollars(payload, tampered);
        const forged = Buffer.from(outputText(await inline.run({ index: 0, payload: tampered })), 'utf8');
        const counts = { rows: honest.rows, errorRows: honest.errorRows, students: honest.students };
        const mac = signer.signOutput(jobId, job.data.mac, counts, honestBytes);
        await writer.set(chunkResultKey(h.prefix, jobId), forged, 'EX', RESULT_TTL_SECONDS);
        forgedStored++;
        return { ...counts, mac };
      },
      { connection: { url: redis.url, maxRetriesPerRequest: null }, prefix: h.prefix },
    );
    try {
      await worker.waitUntilReady();
      const before = await metricsText(h.service.base);
      const res = await fetch(`${h.service.base}/v1/calculate/bulk`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv' },
        body: examplesCsv(),
      });
      expect(res.status).toBe(200);
      expectExampleFigures(await res.text());
      expect(forgedStored).toBe(1);
      const failures = (text: string) =>
        Number(/^sor_queue_chunk_integrity_failures_total\{stage="output"\} (\d+)/m.exec(text)?.[1] ?? '0');
      expect(failures(await metricsText(h.service.base)) - failures(before)).toBe(1);
      // Read once, then gone: the API deletes an output as it reads it.
      expect(await writer.keys(`${h.prefix}:${QUEUE_NAME}:result:*`)).toEqual([]);
    } finally {
      await worker.close();
      writer.disconnect();
      await h.close();
    }
  });

  it('a worker leaves its output for at most RESULT_TTL_SECONDS (15 s) when nobody collects it', async () => {
    const prefix = uniquePrefix('ttl');
    prefixes.push(prefix);
    const config = testConfig({ REDIS_URL: redis.url, REDIS_PREFIX: prefix });
    const worker = startChunkWorker({ config, logger: silentLogger, runner: inline, concurrency: 1 });
    const queue = new Queue<ChunkJobData, ChunkJobReturn>(QUEUE_NAME, { connection: { url: redis.url }, prefix });
    const events = new QueueEvents(QUEUE_NAME, { connection: { url: redis.url }, prefix });
    const client = new Redis(redis.url);
    try {
      await Promise.all([worker.ready(), events.waitUntilReady()]);
      const payload = (await captureChunkPayload()) as string;
      const jobId = 'rttl.c0';
      await client.set(chunkPayloadKey(prefix, jobId), payload, 'EX', 60);
      const job = await queue.add('chunk', new ChunkSigner(TEST_SIGNING_KEY).signPayload(jobId, payload), { jobId });
      await job.waitUntilFinished(events, 20_000);
      const ttl = await client.ttl(chunkResultKey(prefix, jobId));
      expect(RESULT_TTL_SECONDS).toBeLessThanOrEqual(15);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(RESULT_TTL_SECONDS);
    } finally {
      client.disconnect();
      await events.close();
      await queue.close();
      await worker.close();
    }
  });
});

/** The payload the bulk pipeline builds for examples.json's students (one chunk). */
async function captureChunkPayload(): Promise<string | undefined> {
  const { runBulk } = await import('../../src/bulk/pipeline.ts');
  const { Readable, Writable } = await import('node:stream');
  let captured: string | undefined;
  await runBulk({
    input: Readable.from([Buffer.from(examplesCsv())]),
    output: new Writable({ write: (_c, _e, cb) => cb() }),
    format: 'csv',
    runner: {
      kind: 'pool',
      async run(task) {
        captured = task.payload;
        return inline.run(task);
      },
      close: async () => undefined,
    },
    config: testConfig({}),
  });
  return captured;
}
