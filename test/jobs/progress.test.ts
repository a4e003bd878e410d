/**
 * A job's progress as its status shows it (src/jobs/job-run.ts): written at most every half second, and the last
 * count of a burst is written when that half second ends. Chunks that finish just after a write are not left
 * unseen while the next chunk takes long: the status reaches every student but the held chunk's, not the count of
 * the first chunk alone. The last chunk is held by the runner (never a sleep-and-hope).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES, examplesCsv } from '../bulk/examples.ts';
import { holdingRunner, jobService, tempDir } from '../cli/harness.ts';

const tmp = tempDir('job-progress');
afterAll(() => tmp.rm());

const CHUNK = 4;
const students = EXAMPLES.length;
const chunks = Math.ceil(students / CHUNK);
const lastChunkStudents = students - (chunks - 1) * CHUNK;

describe('a job whose last chunk is slow', () => {
  it('shows every student of the finished chunks while the last one runs', async () => {
    expect(chunks).toBeGreaterThan(2); // several chunks finish in one burst before the held one
    const hold = holdingRunner(chunks - 1);
    const service = await jobService(hold.runner, tmp.dir, { BULK_CHUNK_STUDENTS: String(CHUNK) });
    try {
      const submitted = await fetch(`${service.base}/v1/jobs`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/csv' },
        body: examplesCsv(EXAMPLES),
      });
      expect(submitted.status).toBe(202);
      const { id } = (await submitted.json()) as { id: string };
      await hold.arrived;
      // Polled for up to 5 s: the count is written within half a second of the burst.
      let done = -1;
      for (let i = 0; i < 50 && done !== students - lastChunkStudents; i++) {
        const job = (await (await fetch(`${service.base}/v1/jobs/${id}`)).json()) as {
          status: string;
          progress: { students_done: number };
        };
        expect(job.status).toBe('running');
        done = job.progress.students_done;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(done).toBe(students - lastChunkStudents);
    } finally {
      hold.release();
      await service.close();
    }
  }, 60_000);
});
