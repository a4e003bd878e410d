/**
 * The bulk output never depends on how the input bytes are cut into chunks: every file of the
 * fuzz corpus (the mutations of fuzz.test.ts) run through the whole pipeline whole, one byte at a time, header
 * first, and in random chunk sizes (seeded) gives byte-identical output. Plus the issue's own case: a stray
 * opening quote in the first 64 KB of a 3,000-row file must not swallow rows or leave a student `ok` on a subset
 * of its terms.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { mulberry32 } from '../support/prng.ts';
import { SAMPLE_CSV, bulkConfig, generatedCsv, parseOutput, readText, row, HEADER, runToString } from './helpers.ts';
import { applyMutation, mutationArb } from './mutations.ts';

const inline = createInlineRunner();
const config = bulkConfig({ BULK_CHUNK_STUDENTS: '7' });

/** The pipeline's output for `input` cut into pieces of the given sizes (cycled); a rejection as its message. */
async function output(input: Buffer, pieces: number[]): Promise<string> {
  try {
    return (await runToString(input, inline, { pieces, config })).text;
  } catch (error) {
    return `rejected: ${(error as Error).message}`;
  }
}

function randomSizes(seed: number, count: number, max: number): number[] {
  const next = mulberry32(seed);
  return Array.from({ length: count }, () => 1 + Math.floor(next() * max));
}

const base = readText(SAMPLE_CSV) + generatedCsv(30).csv.split('\n').slice(1).join('\n');

/** The fuzz corpus: seeded mutation lists applied to the base file, plus the fixed shapes fuzz.test.ts uses. */
const corpus: string[] = [
  base,
  applyMutation(base, { kind: 'crlf' }),
  applyMutation(base, { kind: 'bom' }),
  `${HEADER}\n${row('É\u00e9', 'Fall', '12')}\n${row('日本', 'Fall', '6')}\n`,
  ...fc
    .sample(fc.array(mutationArb, { minLength: 1, maxLength: 4 }), { seed: 1111, numRuns: 60 })
    .map((mutations) => mutations.reduce(applyMutation, base)),
  // A stray quote opening a cell, and a `"` ending a cell 1-6 lines later, at seeded random places.
  ...Array.from({ length: 16 }, (_, k) => {
    const next = mulberry32(7000 + k);
    const lines = base.split('\n');
    const pick = (n: number) => Math.floor(next() * n);
    const open = 1 + pick(lines.length - 10);
    const close = open + 1 + pick(6);
    const edit = (i: number, f: (cell: string) => string) => {
      const cells = lines[i]!.split(',');
      const c = pick(cells.length);
      cells[c] = f(cells[c]!);
      lines[i] = cells.join(',');
    };
    edit(open, (cell) => `"${cell}`);
    edit(close, (cell) => `${cell}"`);
    return lines.join('\n');
  }),
];

describe('the bulk output does not depend on how the input is chunked', () => {
  it('every fuzz corpus file: whole, 1 byte at a time, header first and random sizes give the same bytes', async () => {
    for (const [k, text] of corpus.entries()) {
      const input = Buffer.from(text);
      const whole = await output(input, [input.length]);
      expect(whole.length).toBeGreaterThan(0);
      const headerEnd = input.indexOf(10) + 1 || input.length;
      const variants: [string, number[]][] = [
        ['1 byte', [1]],
        ['header first', [headerEnd, input.length]],
        ['random 1..64', randomSizes(k + 1, 97, 64)],
        ['random 1..4096', randomSizes(k + 1000, 31, 4096)],
      ];
      for (const [name, pieces] of variants) {
        expect(await output(input, pieces), `file ${k}, ${name}`).toBe(whole);
      }
    }
  });

  it('over-long cells and lines (1 MB, quoted or not, CRLF) in random chunk sizes give the same bytes', async () => {
    const files = [false, true].flatMap((quoted) => {
      const big = applyMutation(base, { kind: 'bigCell', line: 5, quoted });
      return [big, applyMutation(big, { kind: 'crlf' })];
    });
    // A quoted record that ends exactly at the row limit, with CRLF (the boundaries the limits decide on).
    const limits = bulkConfig();
    const pad = 'p'.repeat(limits.BULK_MAX_ROW_CHARS - row('Q1', '"x"', '12').length);
    files.push(`${HEADER}\r\n${row('Q1', `"x${pad}"`, '12')}\r\n${row('Q1', 'Spring', '12')}\r\n`);
    files.push(`${HEADER}\r\n${row('Q1', `"x${pad}x"`, '12')}\r\n${row('Q2', 'Spring', '12')}\r\n`);
    for (const [k, text] of files.entries()) {
      const input = Buffer.from(text);
      const whole = await output(input, [input.length]);
      for (const seed of [1, 2, 3]) {
        expect(await output(input, randomSizes(seed * 100 + k, 53, 70_000)), `file ${k}, seed ${seed}`).toBe(whole);
      }
    }
  });

  it("the issue's case: a stray opening quote in the first 64 KB of a 3,000-row file loses no row", async () => {
    // 750 students of 4 terms; student 132's first term_label opens a quote that a `"` 300 lines later closes:
    // before the line end (the record then has the wrong width) or before a comma in the same column (right
    // width, but a cell of 300 lines, over the cell limit). Either swallowed rows before the fix.
    for (const closing of ['line end', 'comma'] as const) {
      const lines = [HEADER];
      for (let s = 1; s <= 750; s++) {
        const id = `S${String(s).padStart(7, '0')}`;
        ['Fall', 'Winter', 'Spring', 'Summer'].forEach((term, t) => {
          const extra: Record<string, string> = { academic_year_terms: '4', subsidized_amount: '', total_limit: '' };
          if (s === 132 && t === 0) extra.term_label = '"Fall';
          if (s === 207 && t === 0) {
            if (closing === 'comma') extra.term_label = 'Fall"';
            else extra.total_limit = '5500"';
          }
          lines.push(row(id, extra.term_label ?? term, '12', extra));
        });
      }
      const input = Buffer.from(`${lines.join('\n')}\n`);
      expect(input.indexOf('"Fall')).toBeLessThan(64 * 1024);
      const whole = await output(input, [input.length]);
      for (const pieces of [[65_536], [input.indexOf(10) + 1, input.length], [1000]]) {
        expect(await output(input, pieces)).toBe(whole);
      }
      const rows = parseOutput(whole);
      expect(rows.length, closing).toBe(3000);
      const affected = rows.filter((r) => r.student_id === 'S0000132');
      expect(affected.map((r) => r.row_status)).toEqual(['error', 'error', 'error', 'error']);
      expect(affected[0]!.error_message).toMatch(/a quoted field spans 301 lines/);
      // Every other student is computed from all four of its terms (S0000207's total_limit "5500\"" is invalid).
      const others = rows.filter((r) => r.student_id !== 'S0000132' && r.student_id !== 'S0000207');
      expect(others.length).toBe(2992);
      expect(others.every((r) => r.row_status === 'ok')).toBe(true);
    }
  });
});
