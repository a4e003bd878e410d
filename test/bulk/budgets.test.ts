/**
 * Size budgets of the bulk pipeline: a student whose rows hold more than
 * BULK_MAX_STUDENT_CHARS characters is an error and never calculated, and chunks are cut by size as well as by
 * students, so no thread receives more than MAX_CHUNK_CHARS of cells (or one student within its budget).
 */
import { describe, expect, it } from 'vitest';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { decodePayload } from '../../src/bulk/chunk-payload.ts';
import { MAX_CHUNK_CHARS } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { HEADER, bulkConfig, parseOutput, row, runToString } from './helpers.ts';

/** The inline runner, recording the characters of cells of every chunk it is given. */
function recordingRunner(): ChunkRunner & { chunkChars: number[]; studentErrors: string[] } {
  const inline = createInlineRunner();
  const chunkChars: number[] = [];
  const studentErrors: string[] = [];
  return {
    kind: 'inline',
    chunkChars,
    studentErrors,
    run(task) {
      const payload = decodePayload(task.payload);
      let chars = 0;
      for (const s of payload.s) {
        // As the grouper counts: a row sent as its raw line by its length, else each cell and a separator.
        s.c.forEach((cells, r) => {
          const raw = s.r?.[r];
          chars += raw !== undefined ? raw.length : cells.reduce((n, cell) => n + cell.length + 1, 0);
        });
        if (s.x !== undefined) studentErrors.push(s.x.m);
      }
      chunkChars.push(chars);
      return inline.run(task);
    },
    close: () => inline.close(),
  };
}

describe('student byte budget', () => {
  it('a student over BULK_MAX_STUDENT_CHARS is an error on every row; its neighbours are computed', async () => {
    // Labels of at most 100 characters (rules.md §8) and a long student id: over 1,024 characters in 4 rows, each
    // cell under the 1,000-character cell limit.
    const label = 'L'.repeat(98);
    const huge = `HUGE${'-'.repeat(200)}`;
    const text = [
      HEADER,
      row('OK1', 'Fall', '12'),
      row('OK1', 'Spring', '12'),
      ...['T1', 'T2', 'T3', 'T4'].map((t) => row(huge, `${t}${label}`, '12', { academic_year_terms: '4' })),
      row('OK2', 'Fall', '6'),
      row('OK2', 'Spring', '6'),
      '',
    ].join('\n');
    const runner = recordingRunner();
    const { text: out } = await runToString(text, runner, { config: bulkConfig({ BULK_MAX_STUDENT_CHARS: '1024' }) });
    const rows = parseOutput(out);
    expect(rows.map((r) => [r.student_id, r.row_status])).toEqual([
      ['OK1', 'ok'],
      ['OK1', 'ok'],
      [huge, 'error'],
      [huge, 'error'],
      [huge, 'error'],
      [huge, 'error'],
      ['OK2', 'ok'],
      ['OK2', 'ok'],
    ]);
    const message =
      // A long student id is quoted by its first 60 characters in a message.
      `the rows of student_id "${huge.slice(0, 60)}…" hold more than 1024 characters, the most one student may have; this student ` +
      'was not calculated';
    expect(rows.filter((r) => r.student_id === huge).every((r) => r.error_message === message)).toBe(true);
    expect(runner.studentErrors).toEqual([message]);
    // Same student with the default budget: computed (the label is a valid term label).
    const { text: normal } = await runToString(text, createInlineRunner());
    expect(parseOutput(normal).every((r) => r.row_status === 'ok')).toBe(true);
  });
});

describe('chunks cut by size', () => {
  it('no chunk holds more than MAX_CHUNK_CHARS of cells, whatever BULK_CHUNK_STUDENTS allows', async () => {
    // 1,500 students of 4 rows with about 1.9 KB of cells each: about 11 Mi characters, one chunk by count.
    const lines = [HEADER];
    for (let s = 0; s < 1500; s++) {
      for (let t = 0; t < 4; t++) {
        lines.push(
          row(`S${s}`, `T${t}${'L'.repeat(900)}`, '12', {
            academic_year_terms: '4',
            cost_of_attendance: '9'.repeat(900),
          }),
        );
      }
    }
    const runner = recordingRunner();
    const { text: out, summary } = await runToString(`${lines.join('\n')}\n`, runner, {
      config: bulkConfig({ BULK_CHUNK_STUDENTS: '100000' }),
    });
    expect(summary.rows).toBe(6000);
    expect(parseOutput(out).length).toBe(6000);
    expect(runner.chunkChars.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...runner.chunkChars)).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    expect(runner.chunkChars.reduce((a, b) => a + b, 0)).toBeGreaterThan(2 * MAX_CHUNK_CHARS);
  });
});
