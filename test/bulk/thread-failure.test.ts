/**
 * A pool thread's memory and its death.
 *
 * A thread reads a chunk student by student (src/bulk/payload-reader.ts), so the heap it needs is that of one
 * student, whatever the size of the chunk: a chunk at the size cut (MAX_CHUNK_CHARS of cells, most of them
 * characters above U+00FF, two bytes each in a thread's strings) is computed by a thread with a 20 MB old
 * generation (the service's threads have 128 MB; a thread needs ~12 MB to start). Read as one string, that chunk
 * took the thread to its heap limit, where Node ends a thread only on a best-effort basis: one time in ten the
 * whole process aborted (an allocation of the optimizing compiler that did not fit).
 *
 * A thread that dies all the same (a defect, a crash) fails its chunk alone: that chunk's students become
 * internal_error rows, the chunks before and after it are computed, the process stays up, and piscina replaces
 * the thread so the next file is computed normally. The thread here ends itself (fixtures/dying-pool-thread.ts),
 * the one way to end a thread mid-chunk at a known point.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { MAX_CHUNK_CHARS } from '../../src/bulk/pipeline.ts';
import { FAILED_CHUNK_MESSAGE } from '../../src/bulk/chunk-scheduler.ts';
import {
  HEADER,
  SAMPLE_CSV,
  SAMPLE_EXPECTED_CSV,
  bulkConfig,
  parseOutput,
  readText,
  row,
  runToString,
} from './helpers.ts';

const SMALL_HEAP = { maxOldGenerationSizeMb: 20, maxYoungGenerationSizeMb: 4 };
const chunked = { config: bulkConfig({ BULK_CHUNK_STUDENTS: '560' }) };

/**
 * 560 one-row students, 560 students of 4 rows with 1,800 characters of cells each, 560 one-row students: with 560
 * students per chunk the middle students fill a chunk up to the size cut, the others make small chunks.
 */
function fileWithChunkAtTheCut(middleId: (s: number) => string): string {
  const lines = [HEADER];
  for (let s = 0; s < 560; s++) lines.push(row(`A${s}`, 'Fall', '12'));
  for (let s = 0; s < 560; s++) {
    for (let t = 0; t < 4; t++) {
      lines.push(row(middleId(s), `T${t}${'Ł'.repeat(900)}`, '12', { cost_of_attendance: 'Ċ'.repeat(900) }));
    }
  }
  for (let s = 0; s < 560; s++) lines.push(row(`Z${s}`, 'Fall', '12'));
  const text = `${lines.join('\n')}\n`;
  expect(text.length).toBeGreaterThan(MAX_CHUNK_CHARS);
  return text;
}

describe('a pool thread', () => {
  const errors: unknown[] = [];
  const small = createPoolRunner({
    threads: 1,
    output: 'bytes',
    resourceLimits: SMALL_HEAP,
    onThreadError: (e) => errors.push(e),
  });
  const dying = createPoolRunner({
    threads: 1,
    output: 'bytes',
    threadModule: new URL('./fixtures/dying-pool-thread.ts', import.meta.url),
  });
  afterAll(() => Promise.all([small.close(), dying.close()]));

  it('computes a chunk at the size cut with the heap of one student', async () => {
    const text = fileWithChunkAtTheCut((s) => `B${s}`);
    const { text: out, summary } = await runToString(text, small, chunked);
    const rows = parseOutput(out);
    expect(rows.length).toBe(560 + 560 * 4 + 560);
    expect(summary.rows).toBe(rows.length);
    // Its cells are no figures: validation errors, computed as the inline runner computes them, none internal.
    expect(rows.some((r) => r.error_code === 'internal_error')).toBe(false);
    expect(out).toBe((await runToString(text, createInlineRunner(), chunked)).text);
    expect(errors).toEqual([]);
  });

  it('that dies fails its chunk alone; the chunks around it are computed and the pool answers the next file', async () => {
    const text = fileWithChunkAtTheCut((s) => (s === 0 ? 'DIE' : `B${s}`));
    const { text: out, summary } = await runToString(text, dying, chunked);
    const rows = parseOutput(out);
    expect(rows.length).toBe(560 + 560 * 4 + 560);
    expect(summary.rows).toBe(rows.length);
    const failed = rows.filter((r) => r.error_message === FAILED_CHUNK_MESSAGE);
    // The chunk of the DIE student, and only it: middle students (any of them past the size cut spill into the next
    // chunk, which is computed), no A or Z student.
    expect(failed.length).toBeGreaterThan(2000);
    expect(failed.length).toBeLessThanOrEqual(560 * 4);
    expect(failed.every((r) => /^(DIE|B)/.test(r.student_id) && r.error_code === 'internal_error')).toBe(true);
    expect(rows.filter((r) => /^[AZ]/.test(r.student_id)).every((r) => r.row_status === 'ok')).toBe(true);

    // The pool replaced the thread: the sample file gives its expected output.
    const sample = await runToString(readText(SAMPLE_CSV), dying);
    expect(sample.text).toBe(readText(SAMPLE_EXPECTED_CSV));
  });
});
