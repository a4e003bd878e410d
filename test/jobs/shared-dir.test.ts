/**
 * Two API processes (the real server, no Redis) on one JOBS_DIR, as docs/operations.md says: submissions to both
 * at once all succeed, each job is visible and downloadable from either process, an Idempotency-Key sent to both
 * at once names one job, and when one process is SIGKILLed mid-job the other resumes its job (its instance is a
 * process of this host that is gone) and completes it; SQLite's integrity check finds the database intact.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from '../support/processes.ts';
import { makeCsv } from '../queue/csv-gen.ts';
import { type Api, startApi } from '../auth/helpers.ts';

type Job = { id: string; status: string; progress: { students_done: number }; links: Record<string, string> };

const root = mkdtempSync(join(tmpdir(), 'sor-shared-jobs-'));
const env = { SPOOL_DIR: join(root, 'spool'), JOBS_DIR: join(root, 'jobs'), BULK_THREADS: '1' };

afterAll(async () => {
  await killAll();
  rmSync(root, { recursive: true, force: true });
});

async function submit(api: Api, body: string, headers: Record<string, string> = {}): Promise<Job> {
  const res = await fetch(`${api.base}/v1/jobs`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/csv', ...headers },
    body,
  });
  expect(res.status).toBe(202);
  return (await res.json()) as Job;
}

async function status(api: Api, id: string): Promise<Job> {
  const res = await fetch(`${api.base}/v1/jobs/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Job;
}

async function until(api: Api, id: string, pass: (j: Job) => boolean): Promise<Job> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const job = await status(api, id);
    if (pass(job)) return job;
    if (['failed', 'cancelled'].includes(job.status)) throw new Error(`job ${job.status}: ${JSON.stringify(job)}`);
    if (Date.now() > deadline) throw new Error(`job still ${job.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function sha(api: Api, path: string): Promise<string> {
  const res = await fetch(`${api.base}${path}`);
  expect(res.status).toBe(200);
  return createHash('sha256')
    .update(Buffer.from(await res.arrayBuffer()))
    .digest('hex');
}

describe('two API processes on one JOBS_DIR', () => {
  it('share every job, one key names one job, and one resumes the jobs of the other when it is killed', async () => {
    const a = await startApi(env);
    const b = await startApi(env);
    const files = Array.from({ length: 6 }, (_, i) => makeCsv(2_000, 100 + i));
    // Six submissions at once, three to each process: all accepted.
    const jobs = await Promise.all(files.map((f, i) => submit(i % 2 === 0 ? a : b, f)));
    expect(new Set(jobs.map((j) => j.id)).size).toBe(6);
    // The same key and file sent to both at once: one job.
    const key = { 'Idempotency-Key': 'shared-key-1' };
    const [x, y] = await Promise.all([submit(a, files[0]!, key), submit(b, files[0]!, key)]);
    expect(x.id).toBe(y.id);
    // Every job is visible and downloads the same bytes from either process.
    for (const job of [...jobs, x]) {
      await until(a, job.id, (j) => j.status === 'completed');
      const done = await status(b, job.id);
      expect(done.status).toBe('completed');
      expect(await sha(a, done.links.result_csv!)).toBe(await sha(b, done.links.result_csv!));
    }

    // A runs a large job and is killed: B takes it over and completes it.
    const large = makeCsv(60_000, 9);
    const job = await submit(a, large);
    await until(b, job.id, (j) => j.status === 'running' && j.progress.students_done >= 1_000);
    a.child.proc.kill('SIGKILL');
    expect(await a.child.exited).toBe('SIGKILL');
    await b.child.waitFor(/"msg":"async job resumed: it runs again from its upload"/, 60_000);
    const finished = await until(b, job.id, (j) => j.status === 'completed');
    const clean = await until(b, (await submit(b, large)).id, (j) => j.status === 'completed');
    expect(await sha(b, finished.links.result_ndjson!)).toBe(await sha(b, clean.links.result_ndjson!));
    b.child.proc.kill('SIGTERM');
    expect(await b.child.exited).toBe(0);

    const db = new DatabaseSync(join(env.JOBS_DIR, 'jobs.db'));
    try {
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      const rows = db.prepare(`SELECT count(*) AS n FROM jobs WHERE status = 'completed'`).get() as { n: number };
      expect(rows.n).toBe(9); // six, the keyed one, the large one and its clean run
    } finally {
      db.close();
    }
  }, 600_000);
});
