/**
 * Differential fuzz: random mutations of a valid file, run through the bulk pipeline (CSV
 * and NDJSON, random input chunking). For every file:
 *  - the CSV output has one row per data record the reader finds (the records are checked against the file's
 *    physical lines in fuzz.test.ts), in order;
 *  - a student (a run of records with one student_id) is all `ok` or all `error`;
 *  - every `ok` student equals what the single endpoint computes for the same student: the request is built
 *    here from the student's cells, independently of src/bulk, then checked by the endpoint's schema
 *    (parseCalculationRequest) and computed by calculate(), exactly as POST /v1/calculate does.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CsvRecordReader } from '../../src/bulk/csv-reader.ts';
import { type CsvRecord } from '../../src/bulk/csv-record.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { parseCalculationRequest } from '../../src/schema/request.ts';
import { calculate } from '../../src/domain/calculate.ts';
import { mulberry32 } from '../support/prng.ts';
import {
  SAMPLE_CSV,
  bulkConfig,
  generatedCsv,
  parseNdjson,
  parseOutput,
  readText,
  runToString,
  type OutputRow,
} from './helpers.ts';
import { applyMutation, mutationArb } from './mutations.ts';

const config = bulkConfig({ BULK_CHUNK_STUDENTS: '5' });
const inline = createInlineRunner();

const STUDENT_TEXT = ['dependency_status', 'degree_level', 'grade_level', 'cost_of_attendance'];
const STUDENT_MONEY = ['subsidized_amount', 'total_limit'];
const STUDENT_BOOLEAN = ['is_legacy_borrower', 'plus_denied'];
const TERM_REQUIRED = ['full_time_credits', 'credits_enrolled'];
const TERM_NULLABLE = [
  'actual_final_credits',
  'prior_disbursement_sub',
  'prior_disbursement_unsub',
  'prior_disbursement_grad_plus',
];

function readRecords(text: string): CsvRecord[] {
  const reader = new CsvRecordReader(config.BULK_MAX_ROW_CHARS, {
    header: true,
    maxCellChars: config.BULK_MAX_CELL_CHARS,
  });
  const out: CsvRecord[] = [];
  reader.push(text, out);
  reader.end(out);
  return out;
}

/** The JSON request body of one student, as a client of POST /v1/calculate would write it from the CSV rows. */
function requestBody(header: string[], rows: string[][]): Record<string, unknown> {
  const col = (name: string) => header.findIndex((h) => h.trim().toLowerCase() === name);
  const cell = (cells: string[], name: string) => (col(name) < 0 ? '' : (cells[col(name)] ?? ''));
  const first = rows[0]!;
  const body: Record<string, unknown> = {};
  for (const name of [...STUDENT_TEXT, ...STUDENT_MONEY]) if (cell(first, name) !== '') body[name] = cell(first, name);
  for (const name of STUDENT_BOOLEAN) {
    const v = cell(first, name).toLowerCase();
    if (v !== '') body[name] = v === 'true' || v === 'yes' || v === '1';
  }
  if (cell(first, 'academic_year_terms') !== '') body.academic_year_terms = Number(cell(first, 'academic_year_terms'));
  body.terms = rows.map((cells) => {
    const term: Record<string, unknown> = { label: cell(cells, 'term_label') };
    for (const name of TERM_REQUIRED) term[name] = cell(cells, name);
    for (const name of TERM_NULLABLE) term[name] = cell(cells, name) === '' ? null : cell(cells, name);
    return term;
  });
  return body;
}

/** Runs of consecutive items with the same key. */
function runsBy<T>(items: T[], key: (item: T) => string): T[][] {
  const runs: T[][] = [];
  items.forEach((item, i) => {
    if (i > 0 && key(items[i - 1]!) === key(item)) runs.at(-1)!.push(item);
    else runs.push([item]);
  });
  return runs;
}

const base = readText(SAMPLE_CSV) + generatedCsv(24).csv.split('\n').slice(1).join('\n');
const files = fc
  .sample(fc.array(mutationArb, { minLength: 1, maxLength: 3 }), { seed: 20261123, numRuns: 80 })
  .map((mutations) => mutations.reduce(applyMutation, base));

describe('differential fuzz: mutated files against the single endpoint', () => {
  it('rows = records, students all-or-nothing, every ok student equals calculate() of the endpoint', async () => {
    let okStudents = 0;
    let errorStudents = 0;
    for (const [k, text] of files.entries()) {
      const records = readRecords(text);
      const header = records[0]?.error === undefined ? records[0]?.cells : undefined;
      const next = mulberry32(k + 1);
      const pieces = Array.from({ length: 9 }, () => 1 + Math.floor(next() * 2000));
      const csv = await runToString(text, inline, { config, pieces }).catch((e: unknown) => e);
      if (!(csv instanceof Error) && header !== undefined) {
        const data = records.slice(1);
        const idIndex = header.findIndex((h) => h.trim().toLowerCase() === 'student_id');
        const rows = parseOutput((csv as { text: string }).text);
        expect(rows.length, `file ${k}`).toBe(data.length);

        // Students: runs of records with one student_id (the pipeline's grouping rule), in output order.
        const students = runsBy(
          data.map((r, i) => ({ record: r, row: rows[i]! })),
          (x) => x.record.cells[idIndex] ?? '',
        );
        const nd = parseNdjson((await runToString(text, inline, { config, pieces, format: 'ndjson' })).text);
        expect(nd.length, `file ${k}`).toBe(students.length);
        students.forEach((student, s) => {
          const statuses = new Set(student.map((x) => x.row.row_status));
          expect(statuses.size, `file ${k}, line ${student[0]!.record.line}`).toBe(1);
          const line = nd[s]!;
          if (statuses.has('error')) {
            errorStudents++;
            expect(line.result).toBeNull();
            return;
          }
          okStudents++;
          expect(student.every((x) => x.record.error === undefined)).toBe(true);
          const parsed = parseCalculationRequest(
            requestBody(
              header,
              student.map((x) => x.record.cells),
            ),
          );
          expect(parsed.ok, `file ${k}, line ${student[0]!.record.line}`).toBe(true);
          if (!parsed.ok) return;
          const expected = JSON.parse(JSON.stringify(calculate(parsed.value))) as unknown;
          expect(line.result, `file ${k}, line ${student[0]!.record.line}`).toEqual(expected);
          expectCsvRowsMatch(
            student.map((x) => x.row),
            expected,
          );
        });
      }
    }
    // The corpus exercises both outcomes.
    expect(okStudents).toBeGreaterThan(500);
    expect(errorStudents).toBeGreaterThan(20);
  });
});

/** The CSV result columns of an ok student carry the endpoint's numbers. */
function expectCsvRowsMatch(rows: OutputRow[], expected: unknown): void {
  const result = expected as { reduced_annual_pct: number; terms: { disbursement_pct: number }[] };
  rows.forEach((r, t) => {
    expect(Number(r.reduced_annual_pct)).toBe(result.reduced_annual_pct);
    expect(Number(r.disbursement_pct)).toBe(result.terms[t]!.disbursement_pct);
  });
}
