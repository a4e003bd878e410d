/**
 * A chunk that a worker thread cannot hold fails alone: the thread reaches its heap limit and
 * dies, that chunk's students become internal_error rows, the chunks before and after it are computed, the
 * process stays up, and piscina replaces the thread so the next file is computed normally.
 *
 * The threads here get a 20 MB old generation (the service's threads have 128 MB) so that a chunk at the size
 * cut (MAX_CHUNK_CHARS of cells, most of them characters above U+00FF, so two bytes each in the thread's strings)
 * is more than one can hold. (The payload reaches the thread as shared bytes, no longer as a cloned string, so a
 * chunk of one-byte characters at the size cut now fits in 24 MB.)
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

const threadErrors: unknown[] = [];
const pool = createPoolRunner({
  threads: 1,
  resourceLimits: { maxOldGenerationSizeMb: 20, maxYoungGenerationSizeMb: 4 },
  onThreadError: (error) => threadErrors.push(error),
});
afterAll(() => pool.close());

describe('a chunk a thread cannot hold', () => {
  it('becomes error rows alone; the chunks around it are computed and the pool answers the next file', async () => {
    // 560 one-row students, 560 students of 4 rows with 1,800 characters of cells each, 560 one-row students: with 560
    // students per chunk the middle students fill a chunk up to the size cut, the others make small chunks.
    const lines = [HEADER];
    for (let s = 0; s < 560; s++) lines.push(row(`A${s}`, 'Fall', '12'));
    for (let s = 0; s < 560; s++) {
      for (let t = 0; t < 4; t++) {
        lines.push(row(`B${s}`, `T${t}${'Ł'.repeat(900)}`, '12', { cost_of_attendance: 'Ċ'.repeat(900) }));
      }
    }
    for (let s = 0; s < 560; s++) lines.push(row(`Z${s}`, 'Fall', '12'));
    const text = `${lines.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(MAX_CHUNK_CHARS);

    const { text: out, summary } = await runToString(text, pool, {
      config: bulkConfig({ BULK_CHUNK_STUDENTS: '560' }),
    });
    const rows = parseOutput(out);
    expect(rows.length).toBe(560 + 560 * 4 + 560);
    expect(summary.rows).toBe(rows.length);
    const failed = rows.filter((r) => r.error_message === FAILED_CHUNK_MESSAGE);
    // The failed chunk holds B students only, and most of them (the rest spill into the next chunk).
    expect(failed.length).toBeGreaterThan(2000);
    expect(failed.every((r) => r.student_id.startsWith('B') && r.error_code === 'internal_error')).toBe(true);
    expect(rows.filter((r) => r.student_id.startsWith('A')).every((r) => r.row_status === 'ok')).toBe(true);
    expect(rows.filter((r) => r.student_id.startsWith('Z')).every((r) => r.row_status === 'ok')).toBe(true);

    // The pool replaced the thread: the sample file gives its expected output.
    const sample = await runToString(readText(SAMPLE_CSV), pool);
    expect(sample.text).toBe(readText(SAMPLE_EXPECTED_CSV));
    expect(sample.text).toBe((await runToString(readText(SAMPLE_CSV), createInlineRunner())).text);
  });
});
