/**
 * DELETE /v1/jobs/{id} underneath: AsyncJobs.cancel stops a running job (its run's signal aborts, so no further
 * chunk is run), never starts a waiting one, and removes a finished one's result; a job running on another API
 * process (two AsyncJobs on one store) stops at its next progress write. Each ends `cancelled` (job_cancelled).
 */
import { mkdtempSync, writeFileSync, type ReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunBulkOptions } from '../../src/bulk/pipeline.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { AsyncJobs, MAX_CONCURRENT_JOBS } from '../../src/jobs/async-jobs.ts';
import { LocalJobStore } from '../../src/jobs/local-job-store.ts';
import { silentLogger, testConfig } from '../queue/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sor-cancel-'));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** A bulk run that writes a chunk and reports progress every 20 ms until it is aborted (or 200 chunks). */
function slowRun(chunksRun: Map<string, number>, key: string) {
  return async (o: RunBulkOptions) => {
    for (let i = 1; i <= 200; i++) {
      if (o.signal?.aborted) throw o.signal.reason;
      chunksRun.set(key, i);
      o.output.write(`row ${i}\n`);
      o.onProgress?.({ bytes: i, rows: i, errorRows: 0, students: i, chunks: i });
      await new Promise((r) => setTimeout(r, 20));
    }
    o.output.end();
    return { bytes: 200, rows: 200, errorRows: 0, students: 200, chunks: 200, runner: 'inline' as const };
  };
}

function upload(name: string) {
  const path = join(dir, name);
  writeFileSync(path, 'student_id\n');
  return { path, sha256: name, bytes: 11, students: 1 };
}

function jobsOn(store: LocalJobStore, runs: Map<string, number>, key: string): AsyncJobs {
  const jobs = new AsyncJobs({
    config: testConfig({}),
    logger: silentLogger,
    store,
    jobsDir: store.dir,
    runners: createInlineRunner(),
    runBulk: slowRun(runs, key),
  });
  closers.push(() => jobs.close());
  return jobs;
}

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('cancelling a job', () => {
  it('aborts a running job here and never starts a waiting one', async () => {
    const store = new LocalJobStore({ dir: join(dir, 'r1'), ttlSeconds: 60, maxBytes: 64 * 1024 * 1024 });
    closers.push(() => store.close());
    const runs = new Map<string, number>();
    const jobs = jobsOn(store, runs, 'here');
    const submitted = [];
    for (let i = 0; i <= MAX_CONCURRENT_JOBS; i++)
      submitted.push((await jobs.submit(upload(`f${i}`), 'csv', undefined, 'tok_a')).record);
    const running = submitted[0]!;
    const waiting = submitted[MAX_CONCURRENT_JOBS]!;
    await until(async () => (runs.get('here') ?? 0) >= 3, 'the first chunks');
    expect((await store.get(waiting.id))?.status).toBe('queued');

    await jobs.cancel(waiting.id);
    await jobs.cancel(running.id);
    const ranAtCancel = runs.get('here') ?? 0;
    await new Promise((r) => setTimeout(r, 100));
    for (const id of [running.id, waiting.id]) {
      const job = await store.get(id);
      expect(job?.status, id).toBe('cancelled');
      expect(job?.error?.code, id).toBe('job_cancelled');
    }
    expect(ranAtCancel).toBeLessThan(200);
    expect((await store.get(waiting.id))?.started_at).toBeNull();
  });

  it('stops a job running on another process at its next progress write', async () => {
    const store = new LocalJobStore({ dir: join(dir, 'r2'), ttlSeconds: 60, maxBytes: 64 * 1024 * 1024 });
    closers.push(() => store.close());
    const runs = new Map<string, number>();
    const owner = jobsOn(store, runs, 'owner');
    const other = jobsOn(store, runs, 'other');
    const { record } = await owner.submit(upload('g'), 'csv', undefined, 'tok_a');
    await until(async () => (runs.get('owner') ?? 0) >= 2, 'the first chunks');
    await other.cancel(record.id);
    const at = runs.get('owner') ?? 0;
    await until(async () => {
      const n = runs.get('owner') ?? 0;
      await new Promise((r) => setTimeout(r, 700)); // longer than the 500 ms between progress writes
      return (runs.get('owner') ?? 0) === n;
    }, 'the run to stop');
    expect(runs.get('owner')).toBeLessThan(at + 40);
    const job = await store.get(record.id);
    expect(job?.status).toBe('cancelled');
    expect(job?.error?.code).toBe('job_cancelled');
  });

  it('never starts a job waiting on another process once it is cancelled', async () => {
    const store = new LocalJobStore({ dir: join(dir, 'r4'), ttlSeconds: 60, maxBytes: 64 * 1024 * 1024 });
    closers.push(() => store.close());
    const started: string[] = [];
    const runs = new Map<string, number>();
    const owner = new AsyncJobs({
      config: testConfig({}),
      logger: silentLogger,
      store,
      jobsDir: store.dir,
      runners: createInlineRunner(),
      // Which jobs began computing: a job reads its upload, kept as <job id>.csv in its files.
      runBulk: (o) => {
        started.push(basename(String((o.input as ReadStream).path)));
        return slowRun(runs, 'owner')(o);
      },
    });
    closers.push(() => owner.close());
    const other = jobsOn(store, runs, 'other');
    const ids: string[] = [];
    for (let i = 0; i <= MAX_CONCURRENT_JOBS; i++) {
      ids.push((await owner.submit(upload(`w${i}`), 'csv', undefined, 'tok_a')).record.id);
    }
    const waiting = ids[MAX_CONCURRENT_JOBS]!;
    await until(async () => started.length === MAX_CONCURRENT_JOBS, 'the running jobs');
    await other.cancel(waiting);
    for (const id of ids.slice(0, MAX_CONCURRENT_JOBS)) await owner.cancel(id); // frees the slots
    await new Promise((r) => setTimeout(r, 200));
    expect(started).toHaveLength(MAX_CONCURRENT_JOBS);
    expect(started).not.toContain(`${waiting}.csv`);
    expect((await store.get(waiting))?.error?.code).toBe('job_cancelled');
    expect((await store.get(waiting))?.started_at).toBeNull();
  });

  it('removes the result of a finished job', async () => {
    const store = new LocalJobStore({ dir: join(dir, 'r3'), ttlSeconds: 60, maxBytes: 64 * 1024 * 1024 });
    closers.push(() => store.close());
    const jobs = new AsyncJobs({
      config: testConfig({}),
      logger: silentLogger,
      store,
      jobsDir: store.dir,
      runners: createInlineRunner(),
      runBulk: async (o) => {
        o.output.end('done\n');
        return { bytes: 1, rows: 1, errorRows: 0, students: 1, chunks: 1, runner: 'inline' };
      },
    });
    closers.push(() => jobs.close());
    const { record } = await jobs.submit(upload('h'), 'csv', undefined, 'tok_a');
    await until(async () => (await store.get(record.id))?.status === 'completed', 'completion');
    const chunks: Buffer[] = [];
    for await (const c of store.readResult(record.id, 'result')) chunks.push(c);
    expect(Buffer.concat(chunks).toString()).toBe('done\n');
    await jobs.cancel(record.id);
    expect((await store.get(record.id))?.status).toBe('cancelled');
    expect((await store.get(record.id))?.error?.code).toBe('job_cancelled');
    expect((await store.headroom()).usedBytes).toBe(0);
  });
});
