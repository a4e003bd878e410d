/**
 * The async job API over HTTP, with the in-process store and with the Redis store: lifecycle (queued/running →
 * completed), progress, results identical to the synchronous pipeline's output for the same file, 409 before
 * completion, failed jobs, Idempotency-Key, TTL expiry, and the HTTP edge cases (406, 415, 404).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobSchema, jobsOpenApiPaths } from '../../src/api/openapi/jobs-paths.ts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import { runBulk } from '../../src/bulk/pipeline.ts';
import type { BulkFormat } from '../../src/bulk/pipeline.ts';
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../../src/bulk/runner.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import type { PoolRunner } from '../../src/bulk/runners/pool.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import type { Config } from '../../src/config.ts';
import { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { RESUME_GRACE_MS, type JobRecord, type JobStore } from '../../src/jobs/job-store.ts';
import { RedisJobStore } from '../../src/jobs/redis-job-store.ts';
import { deleteKeys, findRedis, uniquePrefix } from '../support/redis.ts';
import type { TestRedis } from '../support/redis.ts';
import { makeCsv } from './csv-gen.ts';
import { bulkOutputText, serveJobs, silentLogger, testConfig } from './helpers.ts';

let redis: TestRedis;
let redisClient: Redis;
let pool: PoolRunner;
const prefix = uniquePrefix('jobs');
const spoolDir = mkdtempSync(join(tmpdir(), 'sor-jobs-test-'));
const csv = makeCsv(1200, 3);

/** A runner that holds every chunk until `open()`: lets a test look at a job before it completes. */
function gatedRunner(inner: ChunkRunner) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const runner: ChunkRunner = {
    kind: inner.kind,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      await gate;
      return inner.run(task);
    },
    close: async () => undefined,
  };
  return { runner, open };
}

function pipelineOutput(config: Config, format: BulkFormat, body: string): Promise<string> {
  return bulkOutputText({ body, format, runner: { small: createInlineRunner(), large: pool }, config });
}

interface Harness {
  base: string;
  jobs: AsyncJobs;
  config: Config;
  gate?: () => void;
  close(): Promise<void>;
}

async function start(storeKind: 'local' | 'redis', env: Record<string, string> = {}, gated = false): Promise<Harness> {
  const config = testConfig({ BULK_CHUNK_STUDENTS: '100', BULK_SYNC_MAX_ROWS: '50', ...env });
  const jobsDir = mkdtempSync(join(tmpdir(), 'sor-jobs-dir-'));
  const store: JobStore =
    storeKind === 'local'
      ? new LocalJobStore({ dir: jobsDir, ttlSeconds: config.JOB_TTL_SECONDS, maxBytes: config.JOBS_MAX_DISK_BYTES })
      : new RedisJobStore(redisClient, prefix, config.JOB_TTL_SECONDS);
  const g = gated ? gatedRunner(pool) : undefined;
  const jobs = new AsyncJobs({
    config,
    logger: silentLogger,
    store,
    jobsDir,
    runners: { small: g?.runner ?? createInlineRunner(), large: g?.runner ?? pool },
    runBulk,
  });
  const { base, server } = await serveJobs(jobs, config, spoolDir);
  return {
    base,
    jobs,
    config,
    gate: g?.open,
    async close() {
      g?.open();
      await jobs.close(5000);
      await store.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function submit(h: Harness, body: string, headers: Record<string, string> = {}) {
  return fetch(`${h.base}/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'text/csv', ...headers }, body });
}

async function waitDone(h: Harness, id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`${h.base}/v1/jobs/${id}`);
    const job = (await res.json()) as Record<string, unknown>;
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('job did not finish in 30 s');
}

beforeAll(async () => {
  redis = await findRedis();
  redisClient = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  pool = createPoolRunner({ threads: 2 });
});

afterAll(async () => {
  await pool?.close();
  await deleteKeys(redis.url, prefix);
  redisClient?.disconnect();
  await redis?.stop();
  rmSync(spoolDir, { recursive: true, force: true });
});

describe.each(['local', 'redis'] as const)('async jobs with the %s store', (storeKind) => {
  it('runs a submitted file to completion; the result equals the synchronous pipeline output (CSV and NDJSON)', async () => {
    const h = await start(storeKind);
    try {
      for (const [accept, format] of [
        ['text/csv', 'csv'],
        ['application/x-ndjson', 'ndjson'],
      ] as const) {
        const res = await submit(h, csv, { Accept: accept });
        expect(res.status).toBe(202);
        const body = (await res.json()) as Record<string, string>;
        expect(res.headers.get('location')).toBe(`/v1/jobs/${body.id}`);
        expect(body.status).toBe('queued');
        expect(body.status_url).toBe(`/v1/jobs/${body.id}`);
        expect(body.result_url).toBe(`/v1/jobs/${body.id}/result`);
        const job = await waitDone(h, body.id as string);
        expect(job.status).toBe('completed');
        expect(job.error).toBeNull();
        expect(job.progress).toMatchObject({ students_done: 1200, students_total: 1200 });
        expect(typeof job.finished_at).toBe('string');
        // The wire view is exactly what the OpenAPI document promises.
        expect(() => JobSchema.parse(job)).not.toThrow();
        const result = await fetch(`${h.base}${body.result_url}`);
        expect(result.status).toBe(200);
        expect(result.headers.get('content-type')).toContain(accept);
        expect(await result.text()).toBe(await pipelineOutput(h.config, format, csv));
      }
    } finally {
      await h.close();
    }
  });

  it('answers 409 job_not_ready until the job is completed, and shows progress while it runs', async () => {
    const h = await start(storeKind, {}, true);
    try {
      const { id } = (await (await submit(h, csv)).json()) as { id: string };
      const early = await fetch(`${h.base}/v1/jobs/${id}/result`);
      expect(early.status).toBe(409);
      expect(((await early.json()) as { code: string }).code).toBe('job_not_ready');
      // The counting pass fills in the total while the chunks are held.
      let job: Record<string, unknown> = {};
      for (let i = 0; i < 100; i++) {
        job = (await (await fetch(`${h.base}/v1/jobs/${id}`)).json()) as Record<string, unknown>;
        if ((job.progress as { students_total: number | null }).students_total !== null) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(['queued', 'running']).toContain(job.status);
      expect(job.progress).toEqual({ students_done: 0, students_total: 1200, rows_done: 0, error_rows: 0 });
      h.gate?.();
      expect((await waitDone(h, id)).status).toBe('completed');
      expect((await fetch(`${h.base}/v1/jobs/${id}/result`)).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('refuses a file with an invalid header at submission (400 naming the column), as the bulk endpoint does', async () => {
    const h = await start(storeKind);
    try {
      const res = await submit(h, 'student_id,term_label\nS1,Fall\n');
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('validation_error');
      expect(body.message).toMatch(/full_time_credits/);
    } finally {
      await h.close();
    }
  });

  it('returns the existing job for a repeated Idempotency-Key and file; the same key with another file is another job', async () => {
    const h = await start(storeKind);
    try {
      const key = `key-${storeKind}-${Date.now()}`;
      const first = (await (await submit(h, csv, { 'Idempotency-Key': key })).json()) as { id: string };
      const again = await submit(h, csv, { 'Idempotency-Key': key });
      expect(again.status).toBe(202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(((await again.json()) as { id: string }).id).toBe(first.id);
      // The key is scoped to the upload: a squatter's key with another file never blocks the real file.
      const other = await submit(h, makeCsv(5, 99), { 'Idempotency-Key': key });
      expect(other.status).toBe(202);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      const otherId = ((await other.json()) as { id: string }).id;
      expect(otherId).not.toBe(first.id);
      const otherAgain = await submit(h, makeCsv(5, 99), { 'Idempotency-Key': key });
      expect(((await otherAgain.json()) as { id: string }).id).toBe(otherId);
      // Same file, other result format: another job too.
      const ndjson = await submit(h, csv, { 'Idempotency-Key': key, Accept: 'application/x-ndjson' });
      expect(((await ndjson.json()) as { id: string }).id).not.toBe(first.id);
      const fresh = (await (await submit(h, csv)).json()) as { id: string };
      expect(fresh.id).not.toBe(first.id);
      await waitDone(h, first.id);
      await waitDone(h, fresh.id);
    } finally {
      await h.close();
    }
  });

  it('forgets a job and its result JOB_TTL_SECONDS after it finished (404)', async () => {
    const h = await start(storeKind, { JOB_TTL_SECONDS: '1' });
    try {
      const { id } = (await (await submit(h, makeCsv(20, 5))).json()) as { id: string };
      expect((await waitDone(h, id)).status).toBe('completed');
      expect((await fetch(`${h.base}/v1/jobs/${id}/result`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1300));
      const gone = await fetch(`${h.base}/v1/jobs/${id}`);
      expect(gone.status).toBe(404);
      expect(((await gone.json()) as { code: string }).code).toBe('not_found');
      expect((await fetch(`${h.base}/v1/jobs/${id}/result`)).status).toBe(404);
    } finally {
      await h.close();
    }
  });
});

describe('async job HTTP edges', () => {
  it('the /v1/jobs paths make a valid OpenAPI 3.1 document together with the core API', async () => {
    const doc = buildOpenApiDocument({
      paths: jobsOpenApiPaths({ ttlSeconds: 86_400, maxBytes: 1024, store: 'local' }),
    });
    const result = await new Validator().validate(
      JSON.parse(JSON.stringify(doc)) as Parameters<Validator['validate']>[0],
    );
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(JSON.stringify(doc.paths?.['/v1/jobs'])).toContain('survive a restart of the API');
  });

  it('accepts multipart/form-data, refuses other media types (415), unknown Accept (406) and unknown ids (404)', async () => {
    const h = await start('local');
    try {
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'students.csv');
      const res = await fetch(`${h.base}/v1/jobs`, { method: 'POST', body: form });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: string };
      expect((await waitDone(h, id)).status).toBe('completed');
      expect(await (await fetch(`${h.base}/v1/jobs/${id}/result`)).text()).toBe(
        await pipelineOutput(h.config, 'csv', csv),
      );

      const json = await fetch(`${h.base}/v1/jobs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(json.status).toBe(415);
      expect((await submit(h, csv, { Accept: 'application/pdf' })).status).toBe(406);
      expect((await fetch(`${h.base}/v1/jobs/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
      expect((await fetch(`${h.base}/v1/jobs/not-a-uuid/result`)).status).toBe(404);
      expect((await submit(h, csv, { 'Idempotency-Key': 'x'.repeat(300) })).status).toBe(400);
    } finally {
      await h.close();
    }
  });

  it('reads a job no process resumed within the grace after its lease ran out as failed, not running forever', async () => {
    const store = new RedisJobStore(redisClient, prefix, 60);
    const record: JobRecord = {
      id: '11111111-1111-4111-8111-111111111111',
      status: 'running',
      format: 'csv',
      created_at: new Date().toISOString(),
      started_at: new Date().toISOString(),
      finished_at: null,
      students_done: 10,
      students_total: 100,
      rows_done: 20,
      error_rows: 0,
      error: null,
      fingerprint: 'x',
      lease_until: Date.now() - RESUME_GRACE_MS - 1,
    };
    await store.create(record);
    const seen = await store.get(record.id);
    expect(seen?.status).toBe('failed');
    expect(seen?.error?.message).toMatch(/stopped before it finished/);
    expect((await store.counts()).failed).toBeGreaterThanOrEqual(1);
  });
});
