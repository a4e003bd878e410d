/**
 * A job that failed for the service's reasons does not hold its Idempotency-Key: its message
 * says "submit the file again", and resubmitting with the same key then makes a new job instead of returning the
 * failed one for 24 hours. A job that failed because of its file, or was cancelled, keeps its key. Both stores;
 * and through the API, a job handed back by a shutdown of the service keeps its key and runs when the service is
 * back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import { newJobId } from '../../src/jobs/job-id.ts';
import { RESUME_GRACE_MS, type JobError, type JobRecord, type JobStore } from '../../src/jobs/job-store.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { RedisJobStore } from '../../src/jobs/redis-job-store.ts';
import { entryEnvelope } from '../../src/errors.ts';
import { runBulk } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { deleteKeys, findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { makeCsv } from './csv-gen.ts';
import { serveJobs, silentLogger, testConfig } from './helpers.ts';

const root = mkdtempSync(join(tmpdir(), 'sor-idem-release-'));
const prefix = uniquePrefix('idem-release');
let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await findRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  client?.disconnect();
  await deleteKeys(redis.url, prefix);
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

function record(leaseUntil = Date.now() + 60_000): JobRecord {
  return {
    id: newJobId(),
    status: 'queued',
    format: 'csv',
    created_at: new Date().toISOString(),
    started_at: null,
    finished_at: null,
    students_done: 0,
    students_total: 3,
    rows_done: 0,
    error_rows: 0,
    error: null,
    fingerprint: 'f'.repeat(64),
    lease_until: leaseUntil,
    owner: '',
  };
}

const stores: [string, () => JobStore][] = [
  ['local', () => new LocalJobStore({ dir: join(root, `jobs-${Math.random()}`), ttlSeconds: 3600, maxBytes: 1 << 26 })],
  ['redis', () => new RedisJobStore(client, `${prefix}:${Math.random()}`, 3600)],
];

/** Fails the first job of `key` with `error`, then submits again with the key: is a new job made? */
async function resubmitAfter(store: JobStore, key: string, error: JobError): Promise<boolean> {
  const first = await store.create(record(), key);
  expect(first.created).toBe(true);
  await store.update(first.record.id, { status: 'failed', finished_at: new Date().toISOString(), error });
  const again = await store.create(record(), key);
  return again.created;
}

describe.each(stores)('the %s job store', (_name, makeStore) => {
  it('releases the key of a job failed for the service reasons: abandonment, internal, no room', async () => {
    const store = makeStore();
    try {
      for (const [i, error] of [
        entryEnvelope('JOB_ABANDONED'),
        entryEnvelope('INTERNAL'),
        entryEnvelope('INSUFFICIENT_STORAGE'),
        entryEnvelope('JOB_STORE_FULL', { where: 'x', neededMiB: 2, freeMiB: 1 }),
      ].entries()) {
        expect(await resubmitAfter(store, `k-service-${i}`, error), error.message).toBe(true);
      }
    } finally {
      await store.close();
    }
  });

  it('releases the key of a job no process resumed in time after its lease ran out; the new job then holds it', async () => {
    const store = makeStore();
    try {
      const dead = await store.create(record(Date.now() - RESUME_GRACE_MS - 1), 'k-dead');
      expect(dead.created).toBe(true);
      expect((await store.get(dead.record.id))?.error?.message).toMatch(/Submit the file again/);
      const fresh = await store.create(record(), 'k-dead');
      expect(fresh.created).toBe(true);
      expect(fresh.record.id).not.toBe(dead.record.id);
      const replay = await store.create(record(), 'k-dead');
      expect([replay.created, replay.record.id]).toEqual([false, fresh.record.id]);
    } finally {
      await store.close();
    }
  });

  it('keeps the key of a job that failed because of its file, of a cancelled job, and of a running one', async () => {
    const store = makeStore();
    try {
      const fileError: JobError = { code: 'validation_error', message: 'The file has no header row.' };
      expect(await resubmitAfter(store, 'k-file', fileError)).toBe(false);
      expect(await resubmitAfter(store, 'k-cancel', entryEnvelope('JOB_CANCELLED'))).toBe(false);
      const running = await store.create(record(), 'k-running');
      expect((await store.create(record(), 'k-running')).record.id).toBe(running.record.id);
    } finally {
      await store.close();
    }
  });
});

describe('through the API', () => {
  it('a job the service shut down before it started keeps its key, and runs when the service is back', async () => {
    const config = testConfig({ BULK_CHUNK_STUDENTS: '50' });
    const dir = join(root, 'api-jobs');
    const store = new LocalJobStore({ dir, ttlSeconds: 3600, maxBytes: 1 << 26 });
    // A runner that never answers: the first job stays queued behind it until the shutdown hands it back.
    const stuck: ChunkRunner = { kind: 'inline', run: () => new Promise(() => undefined), close: async () => {} };
    const spool = join(root, 'spool');
    const csv = makeCsv(20, 3);
    const headers = { 'Content-Type': 'text/csv', 'Idempotency-Key': 'api-key-1' };

    const before = new AsyncJobs({ config, logger: silentLogger, store, jobsDir: dir, runners: stuck, runBulk });
    const one = await serveJobs(before, config, spool);
    const blockers = [];
    for (let i = 0; i < 2; i++) {
      const r = await fetch(`${one.base}/v1/jobs`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv' },
        body: makeCsv(5, 10 + i),
      });
      blockers.push(r.status);
    }
    expect(blockers).toEqual([202, 202]);
    const first = await fetch(`${one.base}/v1/jobs`, { method: 'POST', headers, body: csv });
    expect(first.status).toBe(202);
    const { id } = (await first.json()) as { id: string };
    await before.close(0);
    await new Promise((resolve) => one.server.close(resolve));
    expect(await store.get(id)).toMatchObject({ status: 'queued', instance: '', error: null });

    const inline = createInlineRunner();
    const after = new AsyncJobs({ config, logger: silentLogger, store, jobsDir: dir, runners: inline, runBulk });
    const two = await serveJobs(after, config, spool);
    try {
      const again = await fetch(`${two.base}/v1/jobs`, { method: 'POST', headers, body: csv });
      expect(again.status).toBe(202);
      expect(again.headers.get('Idempotent-Replayed')).toBe('true');
      expect(((await again.json()) as { id: string }).id).toBe(id);
      const deadline = Date.now() + 30_000;
      while ((await store.get(id))?.status !== 'completed') {
        if (Date.now() > deadline) throw new Error('the job did not run after the restart');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await after.close(0);
      await store.close();
      await new Promise((resolve) => two.server.close(resolve));
    }
  });
});
