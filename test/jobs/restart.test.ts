/**
 * Jobs survive their API process, through the real server (src/server.ts) and real workers, as an ETL client sees
 * it over HTTP:
 *  - without Redis: the API is SIGKILLed while a 100,000-student job runs; started again on the same JOBS_DIR,
 *    it resumes the job from its kept upload, and the job completes with results byte-identical (the CSV, the
 *    NDJSON and the errors-only CSV) to an uninterrupted run of the same file; after one more restart the
 *    finished job still downloads, the same bytes;
 *  - without Redis: SIGTERM while a job runs hands it back (queued) and the next start runs it;
 *  - with Redis and two queue workers: the API is SIGKILLed while the job runs, started again, and the job
 *    completes with the same bytes;
 *  - the restarted API's spool sweep never deletes the upload of a job that will resume (it lives in JOBS_DIR).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { killAll, startWorker, type Child } from '../support/processes.ts';
import { findRedis, uniquePrefix, type TestRedis } from '../support/redis.ts';
import { removePrefix } from '../queue/helpers.ts';
import { makeCsv } from '../queue/csv-gen.ts';
import { type Api, startApi } from '../auth/helpers.ts';

type Job = {
  id: string;
  status: string;
  progress: { students_done: number; students_total: number | null };
  links: Record<string, string>;
};

const STUDENTS = 100_000;
const big = makeCsv(STUDENTS, 2026);
const root = mkdtempSync(join(tmpdir(), 'sor-restart-'));
const prefix = uniquePrefix('restart');
let redis: TestRedis;
/** sha256 of the three downloads of an uninterrupted run of `big`. */
let reference: Record<string, string>;

beforeAll(async () => {
  redis = await findRedis();
});

/** The servers a test started, whose output a failure shows. */
const started: Api[] = [];
afterEach(() => {
  started.length = 0;
});

async function start(env: Record<string, string>): Promise<Api> {
  const api = await startApi(env);
  started.push(api);
  if (started.length === 1) {
    onTestFailed(() => {
      for (const a of started) console.error(`--- ${a.base}:\n${a.child.output().slice(-6000)}`);
    });
  }
  return api;
}

afterAll(async () => {
  await killAll();
  await removePrefix(redis.url, prefix);
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

function envOf(name: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SPOOL_DIR: join(root, name, 'spool'),
    JOBS_DIR: join(root, name, 'jobs'),
    BULK_THREADS: '2',
    ...extra,
  };
}

async function submit(api: Api, body: string, key?: string): Promise<Job> {
  const res = await fetch(`${api.base}/v1/jobs`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/csv', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
    body,
  });
  expect(res.status).toBe(202);
  return (await res.json()) as Job;
}

async function poll(api: Api, id: string, until: (job: Job) => boolean, ms = 240_000): Promise<Job> {
  const deadline = Date.now() + ms;
  for (;;) {
    const job = (await (await fetch(`${api.base}/v1/jobs/${id}`)).json()) as Job;
    if (until(job)) return job;
    if (['failed', 'cancelled'].includes(job.status))
      throw new Error(`job ${id} ${job.status}: ${JSON.stringify(job)}`);
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the job is running and part of the way through: a kill now interrupts it. */
function midway(api: Api, id: string): Promise<Job> {
  return poll(api, id, (j) => j.status === 'running' && j.progress.students_done >= 2_000);
}

const done = (j: Job) => j.status === 'completed';

async function until(probe: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** sha256 of each download of a completed job. */
async function downloads(api: Api, job: Job): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of ['result_csv', 'result_ndjson', 'errors_csv']) {
    const res = await fetch(`${api.base}${job.links[name]}`);
    expect(res.status, name).toBe(200);
    out[name] = createHash('sha256')
      .update(Buffer.from(await res.arrayBuffer()))
      .digest('hex');
  }
  return out;
}

async function kill(api: Api, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  api.child.proc.kill(signal);
  expect(await api.child.exited).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 0);
}

function uploads(env: Record<string, string>): string[] {
  return readdirSync(join(env.JOBS_DIR!, 'uploads')).filter((n) => n.endsWith('.csv'));
}

describe('a job survives its API process', () => {
  it('without Redis: SIGKILLed at 100,000 students, it resumes on restart and completes with the same bytes', async () => {
    const env = envOf('local');
    let api = await start(env);
    const job = await submit(api, big, 'nightly-1');
    await midway(api, job.id);
    await kill(api, 'SIGKILL');
    expect(uploads(env)).toEqual([`${job.id}.csv`]); // the crash left the upload, in the job's files

    api = await start(env);
    expect(api.child.output()).not.toMatch(/removed orphaned upload spool files/);
    await api.child.waitFor(/"msg":"async job resumed: it runs again from its upload"/, 30_000);
    // The same key and file answer the same job, as before the crash.
    expect((await submit(api, big, 'nightly-1')).id).toBe(job.id);
    const finished = await poll(api, job.id, done);
    expect(finished.progress.students_done).toBe(STUDENTS);
    await until(() => uploads(env).length === 0); // deleted once the job ended

    // An uninterrupted run of the same file, on the same server: the reference bytes.
    const clean = await poll(api, (await submit(api, big)).id, done);
    reference = await downloads(api, clean);
    expect(await downloads(api, finished)).toEqual(reference);

    // A finished job downloads after a restart, the same bytes.
    await kill(api, 'SIGTERM');
    api = await start(env);
    expect(await downloads(api, finished)).toEqual(reference);
    await kill(api, 'SIGTERM');
  }, 600_000);

  it('without Redis: SIGTERM hands a running job back, and the next start runs it', async () => {
    // A short grace: the job cannot finish within it (the drain of running jobs lasts at most the grace).
    const env = envOf('sigterm', { SHUTDOWN_GRACE_MS: '500' });
    let api = await start(env);
    const job = await submit(api, big);
    await midway(api, job.id);
    await kill(api, 'SIGTERM');
    expect(api.child.output()).toMatch(/async job handed back at shutdown/);
    expect(uploads(env)).toEqual([`${job.id}.csv`]);

    api = await start(env);
    const seen = (await (await fetch(`${api.base}/v1/jobs/${job.id}`)).json()) as Job;
    expect(['queued', 'running', 'completed']).toContain(seen.status);
    const finished = await poll(api, job.id, done);
    expect(reference).toBeDefined(); // from the first test: an uninterrupted run of the same file
    expect(await downloads(api, finished)).toEqual(reference);
    await kill(api, 'SIGTERM');
  }, 600_000);

  it('with Redis and two workers: the API SIGKILLed mid-job, started again, and the job completes with the same bytes', async () => {
    expect(reference).toBeDefined(); // from the first test: an uninterrupted run of the same file
    const env = envOf('redis', { REDIS_URL: redis.url, REDIS_PREFIX: prefix, BULK_THREADS: '1' });
    const workers: Child[] = [await startWorker(env), await startWorker(env)];
    expect(workers).toHaveLength(2);
    let api = await start(env);
    const job = await submit(api, big, 'nightly-redis');
    await midway(api, job.id);
    await kill(api, 'SIGKILL');
    expect(uploads(env)).toEqual([`${job.id}.csv`]);

    api = await start(env);
    const finished = await poll(api, job.id, done);
    expect(await downloads(api, finished)).toEqual(reference);
    await kill(api, 'SIGTERM');
  }, 600_000);
});
