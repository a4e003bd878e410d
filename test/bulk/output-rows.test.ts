/**
 * Rows written cell by cell into a chunk's bytes (writeOkStudent, writeErrorRow in src/bulk/output-csv.ts, through
 * src/bulk/byte-sink.ts) are the rows spelled out cell by cell with the string functions (textCell, formatCell)
 * joined by the delimiter: on random results and cells with quotes, delimiters, line breaks, formula characters,
 * plain numbers, non-ASCII text, negative and fractional numbers, for every delimiter, every row of a student.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteSink } from '../../src/bulk/byte-sink.ts';
import type { CsvDelimiter } from '../../src/bulk/csv-dialect.ts';
import { RESULT_OUTPUT_COLUMNS } from '../../src/bulk/output-columns.ts';
import {
  checkCellsText,
  formatCell,
  okRowLine,
  studentResultCells,
  textCell,
  writeErrorRow,
  writeOkStudent,
} from '../../src/bulk/output-csv.ts';
import type { CalculationResult, TermResult } from '../../src/domain/types.ts';

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.constantFrom(
    '',
    '=1+2',
    '-x',
    '-90',
    '+5',
    '@a',
    '\tx',
    '\rx',
    'a"b',
    '"',
    'a,b',
    'a;b',
    'a\tb',
    'a\nb',
    'Ünïcode',
  ),
  fc.string({ maxLength: 400 }),
);
const number = fc.oneof(
  fc.integer({ min: -5000, max: 100000 }),
  fc.constantFrom(0, -0, 12.5, 37.5, 0.000001, 2 ** 31, -(2 ** 31), 2 ** 40 + 1, 123456789012),
);
const option = fc.record({ subsidized: number, unsubsidized: number, grad_plus: number });
const term: fc.Arbitrary<TermResult> = fc.record({
  label: text,
  enrollment_status: fc.constantFrom('full_time', 'half_time', 'less_than_half_time'),
  enrollment_intensity_pct: number,
  disbursement_pct: number,
  adjustment_sub: number,
  adjustment_unsub: number,
  adjustment_grad_plus: number,
  adjustment_explanation: text,
  adjustment_source_index: fc.option(fc.integer({ min: 0, max: 3 })),
  credits_enrolled: number,
  full_time_credits: number,
  equal: option,
  proportional: fc.option(option),
  final_term_overdisbursement: fc.boolean(),
  warning: text,
});
const student = fc.integer({ min: 1, max: 4 }).chain((n) =>
  fc.record({
    result: fc.record({
      annual_ft_credits: number,
      reduced_annual_pct: number,
      annual_basic_eligibility_sub: number,
      annual_basic_eligibility_unsub: number,
      annual_basic_eligibility_grad_plus: number,
      show_both_options: fc.boolean(),
      terms: fc.array(term, { minLength: n, maxLength: n }),
      total_equal: option,
      total_proportional: option,
      warnings: fc.array(text, { maxLength: 4 }),
    }) as fc.Arbitrary<CalculationResult>,
    rows: fc.array(
      fc.array(
        text.filter((c) => !c.includes(',')),
        { minLength: 1, maxLength: 6 },
      ),
      {
        minLength: n,
        maxLength: n,
      },
    ),
    width: fc.integer({ min: 1, max: 6 }),
    raw: fc.boolean(),
    d: fc.constantFrom<CsvDelimiter>(',', ';', '\t'),
    check: fc.boolean(),
  }),
);

/** The row spelled out: each echoed cell as textCell, each result cell as formatCell, joined by the delimiter. */
function spelledOut(cells: readonly string[], width: number, values: readonly string[], tail: string, d: string) {
  const echoed = Array.from({ length: width }, (_, i) => (cells[i] === undefined ? '' : textCell(cells[i]!, d as ',')));
  return `${[...echoed, ...values].join(d)}${tail}\n`;
}

describe('rows written into bytes', () => {
  it('an ok student: every row as okRowLine gives it and as the cells spelled out', () => {
    fc.assert(
      fc.property(student, ({ result, rows, width, raw, d, check }) => {
        const tail = check ? checkCellsText(null, d) : '';
        const raws = raw ? rows.map((cells) => cells.join(',')) : undefined;
        const sink = new ByteSink(16);
        writeOkStudent(sink, rows, raws, width, result, tail, d);
        const shared = studentResultCells(result, d);
        const expected = rows.map((cells, r) => {
          const values = RESULT_OUTPUT_COLUMNS.map((c, i) =>
            c.level === 'term' ? formatCell(c.read(result.terms[r]!), d) : shared[i]!,
          );
          const line = spelledOut(cells, width, values, tail, d);
          expect(okRowLine(cells, width, shared, result.terms[r]!, raws?.[r], tail, d)).toBe(line);
          return line;
        });
        expect(sink.toString()).toBe(expected.join(''));
      }),
      { numRuns: 1500 },
    );
  });

  it('an error row: the row-level cells filled, the others empty', () => {
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 6 }),
        fc.integer({ min: 1, max: 6 }),
        text,
        text,
        fc.constantFrom<CsvDelimiter>(',', ';', '\t'),
        (cells, width, field, message, d) => {
          const sink = new ByteSink(0);
          writeErrorRow(sink, cells, width, 'validation_error', field, message, undefined, '', d);
          const row = { status: 'error', code: 'validation_error', field, message } as const;
          const values = RESULT_OUTPUT_COLUMNS.map((c) => (c.level === 'row' ? formatCell(c.read(row), d) : ''));
          expect(sink.toString()).toBe(spelledOut(cells, width, values, '', d));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('numbers as JavaScript prints them, whatever the size of the buffer', () => {
    const values = [0, -0, 7, -7, 10, 99, 100, 2147483647, -2147483647, 2147483648, 1e21, 0.5, -12.25, 1 / 3];
    const sink = new ByteSink(0);
    for (const v of values) {
      sink.number(v);
      sink.byte(32);
    }
    expect(sink.toString()).toBe(values.map((v) => `${String(v)} `).join(''));
  });
});
