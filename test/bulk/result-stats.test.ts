/**
 * What a run's results add up to (src/bulk/result-stats.ts) and an async job's outputs (runBulk `outputs`):
 *  - the spec's worked examples as one file: students calculated, reduced, the dollars of each option and the
 *    reduced_annual_pct distribution equal the sums of examples.json's expected results (never the code's output);
 *  - error rows grouped by column and message, in input order, with their first lines;
 *  - one job run writes the CSV result, the NDJSON result and the errors-only CSV, each byte for byte what the
 *    single-format runs give (the errors-only CSV: the header and the CSV's error rows), on the inline runner and
 *    on the pool (bytes transferred from its threads), and a chunk that could not be run still fills all three.
 */
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runBulk, type BulkSummary, type RunBulkOptions } from '../../src/bulk/pipeline.ts';
import type { ChunkRunner } from '../../src/bulk/runner.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { createPoolRunner } from '../../src/bulk/runners/pool.ts';
import { FIRST_LINES, SIBLING_ERROR_MESSAGE, pctBucket } from '../../src/bulk/result-stats.ts';
import { prescanStream } from '../../src/bulk/prescan.ts';
import { CSV_INVALID_EXAMPLES, EXAMPLES, examplesCsv } from './examples.ts';
import { HEADER, StringSink, bulkConfig, parseOutput, row, runToString } from './helpers.ts';

const inline = createInlineRunner();
const pool = createPoolRunner({ threads: 2, output: 'bytes' });
afterAll(() => pool.close());

type Option = { subsidized: number; unsubsidized: number; grad_plus: number };
const sum = (options: Option[]): Option =>
  options.reduce(
    (t, o) => ({
      subsidized: t.subsidized + o.subsidized,
      unsubsidized: t.unsubsidized + o.unsubsidized,
      grad_plus: t.grad_plus + o.grad_plus,
    }),
    { subsidized: 0, unsubsidized: 0, grad_plus: 0 },
  );

/** One job run of `csv`: its three outputs as text and its summary. */
async function jobRun(
  csv: string,
  runner: RunBulkOptions['runner'],
  format: 'csv' | 'ndjson' = 'csv',
  chunkStudents = '3',
): Promise<{ csv: string; ndjson: string; errors: string; summary: BulkSummary }> {
  const config = bulkConfig({ BULK_CHUNK_STUDENTS: chunkStudents });
  const scan = await prescanStream(Readable.from([Buffer.from(csv)]), {
    maxRowChars: config.BULK_MAX_ROW_CHARS,
    maxCellChars: config.BULK_MAX_CELL_CHARS,
  });
  const outputs = { csv: new StringSink(), ndjson: new StringSink(), errors: new StringSink() };
  const summary = await runBulk({
    input: Readable.from([Buffer.from(csv)]),
    nonContiguous: scan.nonContiguous,
    output: outputs[format],
    outputs,
    format,
    runner,
    config,
  });
  return { csv: outputs.csv.text(), ndjson: outputs.ndjson.text(), errors: outputs.errors.text(), summary };
}

describe('the results of the worked examples, added up', () => {
  const file = examplesCsv([...EXAMPLES, ...CSV_INVALID_EXAMPLES]);

  it.each([
    ['inline', inline],
    ['pool', pool],
  ] as const)('equal the sums of examples.json (%s runner)', async (_name, runner: ChunkRunner) => {
    const { summary } = await jobRun(file, runner);
    const stats = summary.stats!;
    expect(stats.students_ok).toBe(EXAMPLES.length);
    expect(stats.students_with_errors).toBe(CSV_INVALID_EXAMPLES.length);
    const expected = EXAMPLES.map(
      (e) => e.expected as { reduced_annual_pct: number; total_equal: Option; total_proportional: Option },
    );
    expect(stats.students_reduced).toBe(expected.filter((e) => e.reduced_annual_pct < 100).length);
    expect(stats.equal).toEqual(sum(expected.map((e) => e.total_equal)));
    expect(stats.proportional).toEqual(sum(expected.map((e) => e.total_proportional)));
    const buckets = new Array<number>(11).fill(0);
    for (const e of expected) buckets[e.reduced_annual_pct >= 100 ? 10 : Math.floor(e.reduced_annual_pct / 10)]!++;
    expect(stats.pct).toEqual(buckets);
    // Every error row is in a group; every invalid example's columns are named by one.
    const errorRows = CSV_INVALID_EXAMPLES.reduce((n, e) => n + e.request.terms.length, 0);
    expect(summary.errorRows).toBe(errorRows);
    const fields = new Set(stats.error_groups.map((g) => g.field));
    for (const ex of CSV_INVALID_EXAMPLES) {
      expect(
        ex.expected_columns.some((c) => fields.has(c)),
        ex.id,
      ).toBe(true);
    }
  });

  it('puts 100 in a bucket of its own and 0–9, …, 90–99 in tens', () => {
    expect([0, 9, 10, 62.5, 99, 100].map(pctBucket)).toEqual([0, 0, 1, 6, 9, 10]);
  });
});

describe('error groups', () => {
  it('count rows by column and message, in input order, with their first lines', async () => {
    const lines = [HEADER];
    // Students 1-7: a missing credits_enrolled on the Spring row (lines 3, 5, …, 15); its Fall row fails with it.
    for (let i = 1; i <= 7; i++) {
      lines.push(row(`S${i}`, 'Fall', '6'), row(`S${i}`, 'Spring', ''));
    }
    lines.push(row('OK1', 'Fall', '12'), row('OK1', 'Spring', '6'));
    lines.push(row('D1', 'Fall', '6', { dependency_status: 'parent' }));
    const { summary, csv } = await jobRun(lines.join('\n') + '\n', inline);
    const groups = summary.stats!.error_groups;
    expect(groups.map((g) => [g.field, g.rows])).toEqual([
      ['row', 7],
      ['credits_enrolled', 7],
      ['dependency_status', 1],
    ]);
    expect(groups[0]).toMatchObject({ message: SIBLING_ERROR_MESSAGE, first_lines: [2, 4, 6, 8, 10] });
    expect(groups[1]!.first_lines).toEqual([3, 5, 7, 9, 11]);
    expect(groups[1]!.first_lines).toHaveLength(FIRST_LINES);
    expect(groups[2]!.first_lines).toEqual([18]);
    // The group's message is the one the CSV shows for the column.
    const rows = parseOutput(csv);
    expect(rows[1]!.error_message).toBe(`credits_enrolled: ${groups[1]!.message}`);
    expect(summary.stats!.students_with_errors).toBe(8);
    expect(summary.stats!.students_ok).toBe(1);
  });
});

describe("an async job's outputs from one run", () => {
  const file = examplesCsv([...EXAMPLES, ...CSV_INVALID_EXAMPLES]);

  it.each([
    ['inline', 'csv', inline],
    ['pool', 'csv', pool],
    ['pool', 'ndjson', pool],
  ] as const)(
    'are what the single-format runs give (%s runner, %s asked)',
    async (_name, format, runner: ChunkRunner) => {
      const job = await jobRun(file, runner, format);
      const config = bulkConfig({ BULK_CHUNK_STUDENTS: '3' });
      const csv = (await runToString(file, runner, { config })).text;
      const ndjson = (await runToString(file, runner, { config, format: 'ndjson' })).text;
      expect(job.csv).toBe(csv);
      expect(job.ndjson).toBe(ndjson);
      const [header, ...rows] = csv.split('\n').filter((l) => l !== '');
      const errorLines = rows.filter((l) => parseOutput(`${header}\n${l}\n`)[0]!.row_status === 'error');
      expect(errorLines.length).toBeGreaterThan(0);
      expect(job.errors).toBe([header, ...errorLines].map((l) => `${l}\n`).join(''));
    },
  );

  it('a file without errors has an errors-only CSV of its header alone', async () => {
    const job = await jobRun(examplesCsv(EXAMPLES), pool);
    expect(job.errors).toBe(job.csv.slice(0, job.csv.indexOf('\n') + 1));
  });

  it('a chunk that could not be run fills all three outputs with its error rows', async () => {
    const failing: ChunkRunner = {
      kind: 'pool',
      run: () => Promise.reject(new Error('thread died')),
      close: async () => undefined,
    };
    const job = await jobRun(examplesCsv(EXAMPLES.slice(0, 4)), failing);
    const rows = parseOutput(job.csv);
    expect(rows.every((r) => r.row_status === 'error' && r.error_code === 'internal_error')).toBe(true);
    expect(parseOutput(job.errors)).toEqual(rows);
    expect(job.ndjson.trim().split('\n')).toHaveLength(4);
    expect(job.summary.stats!.students_with_errors).toBe(4);
  });
});
