/**
 * The hooks the webhooks build on: a job keeps its callback_url, `onJobEnded` hears of every job that reaches
 * completed, failed or cancelled in this process (once per transition, with the record as stored then), and
 * jobView shows the callback a module keeps about the job. The callback is one of the submission's options.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunBulkOptions } from '../../src/bulk/pipeline.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { AsyncJobs } from '../../src/jobs/async-jobs.ts';
import type { JobRecord } from '../../src/jobs/job-store.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { jobView } from '../../src/api/job-view.ts';
import { JobSchema } from '../../src/api/openapi/jobs-paths.ts';
import { silentLogger, testConfig } from '../queue/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sor-job-hooks-'));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function upload(sha = `sha-${++n}`) {
  const path = join(dir, `u${++n}.csv`);
  writeFileSync(path, 'student_id\n');
  return { path, sha256: sha, bytes: 11, students: 1 };
}

/** A run that ends as `how` says: completes, fails, or runs until aborted. */
function runBulk(how: 'complete' | 'fail' | 'hang') {
  return async (o: RunBulkOptions) => {
    if (how === 'fail') throw new Error('the runner broke');
    if (how === 'hang') {
      await new Promise((_, reject) => {
        if (o.signal?.aborted) reject(o.signal.reason);
        o.signal?.addEventListener('abort', () => reject(o.signal!.reason));
      });
    }
    o.output.end('student_id\n');
    return { bytes: 1, rows: 1, errorRows: 0, students: 1, chunks: 1, runner: 'inline' as const };
  };
}

function service(how: 'complete' | 'fail' | 'hang') {
  const store = new LocalJobStore({ dir: join(dir, `store-${++n}`), ttlSeconds: 60, maxBytes: 64 * 1024 * 1024 });
  const ended: JobRecord[] = [];
  const jobs = new AsyncJobs({
    config: testConfig({}),
    logger: silentLogger,
    store,
    jobsDir: store.dir,
    runners: createInlineRunner(),
    runBulk: runBulk(how),
    onJobEnded: (record) => {
      ended.push(record);
    },
  });
  closers.push(async () => {
    await jobs.close();
    await store.close();
  });
  return { jobs, store, ended };
}

async function until(probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('onJobEnded and callback_url', () => {
  it('hears of a completed job once, with its stored record and its callback_url', async () => {
    const { jobs, ended } = service('complete');
    const { record } = await jobs.submit(upload(), 'csv', undefined, '', {
      callbackUrl: 'https://etl.example.edu/hook',
    });
    expect(record.callback_url).toBe('https://etl.example.edu/hook');
    await until(() => ended.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({
      id: record.id,
      status: 'completed',
      callback_url: 'https://etl.example.edu/hook',
    });
  });

  it('hears of a failed job', async () => {
    const { jobs, ended } = service('fail');
    const { record } = await jobs.submit(upload(), 'csv');
    await until(() => ended.length === 1);
    expect(ended[0]).toMatchObject({ id: record.id, status: 'failed', callback_url: null });
    expect(ended[0]!.error?.code).toBe('internal_error');
  });

  it('hears of a cancelled job once, however often it is cancelled, and of a finished job cancelled later', async () => {
    const hanging = service('hang');
    const { record } = await hanging.jobs.submit(upload(), 'csv');
    await hanging.jobs.cancel(record.id);
    await hanging.jobs.cancel(record.id);
    await new Promise((r) => setTimeout(r, 50));
    expect(hanging.ended.map((r) => [r.id, r.status])).toEqual([[record.id, 'cancelled']]);

    const done = service('complete');
    const finished = (await done.jobs.submit(upload(), 'csv')).record;
    await until(() => done.ended.length === 1);
    await done.jobs.cancel(finished.id);
    expect(done.ended.map((r) => r.status)).toEqual(['completed', 'cancelled']);
  });

  it('counts the callback as an option of the submission: another callback with the same key is another job', async () => {
    const { jobs } = service('complete');
    const sha = 'same-upload';
    const first = await jobs.submit(upload(sha), 'csv', 'key-1', '', { callbackUrl: 'https://a.example.edu/h' });
    const again = await jobs.submit(upload(sha), 'csv', 'key-1', '', { callbackUrl: 'https://a.example.edu/h' });
    expect(again).toMatchObject({ created: false, record: { id: first.record.id } });
    const other = await jobs.submit(upload(sha), 'csv', 'key-1', '', { callbackUrl: 'https://b.example.edu/h' });
    expect(other.created).toBe(true);
    // With a token, the same key with another callback is refused.
    await jobs.submit(upload(sha), 'csv', 'key-2', 'tok_a', { callbackUrl: 'https://a.example.edu/h' });
    await expect(
      jobs.submit(upload(sha), 'csv', 'key-2', 'tok_a', { callbackUrl: 'https://b.example.edu/h' }),
    ).rejects.toMatchObject({ code: 'idempotency_key_reused', status: 422 });
  });

  it('jobView shows the callback a module keeps about the job, and null without one', async () => {
    const { jobs, store } = service('complete');
    const { record } = await jobs.submit(upload(), 'csv', undefined, '', { callbackUrl: 'https://etl.example.edu/h' });
    const job = (await store.get(record.id))!;
    expect(jobView(job).callback).toBeNull();
    const callback = {
      url: 'https://etl.example.edu/h',
      state: 'pending' as const,
      next_attempt_at: '2026-11-24T02:00:12.000Z',
      attempts: [{ at: '2026-11-24T02:00:10.000Z', event: 'job.completed', status: 503, error: null }],
    };
    const view = jobView(job, { callback });
    expect(view.callback).toEqual(callback);
    expect(() => JobSchema.parse(view)).not.toThrow();
  });
});
