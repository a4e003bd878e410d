import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { parse } from 'csv-parse/sync';
import {
  csvCell,
  errorRowLine,
  isFormulaLike,
  okRowLine,
  outputHeaderLine,
  studentResultCells,
  textCell,
} from '../../src/bulk/output-csv.ts';
import { readHeader } from '../../src/bulk/csv-layout.ts';
import { CHECK_COLUMNS, OUTPUT_COLUMNS, RESULT_COLUMNS, RESULT_OUTPUT_COLUMNS } from '../../src/bulk/output-columns.ts';
import { BULK_OUTPUT_COLUMNS } from '../../src/api/openapi/bulk-prose.ts';
import type { CalculationResult, TermResult } from '../../src/domain/types.ts';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { HEADER, parseNdjson, row, runToString } from './helpers.ts';

describe('csvCell', () => {
  it('quotes exactly like csv-stringify and reads back with csv-parse', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('"', ',', '\n', '\r\n', 'a"b', ' ', '')), { minLength: 2 }),
        (cells) => {
          const ours = cells.map((c) => csvCell(c)).join(',') + '\n';
          expect(ours).toBe(stringify([cells]));
          expect(parse(ours, { relax_quotes: false })).toEqual([cells]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([';', '\t'] as const)('with the delimiter %j: quotes as csv-stringify does and reads back', (d) => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('"', ',', ';', '\t', '\n', 'a;b', 'a\tb', '')), {
          minLength: 2,
        }),
        (cells) => {
          const ours = cells.map((c) => csvCell(c, d)).join(d) + '\n';
          expect(ours).toBe(stringify([cells], { delimiter: d }));
          expect(parse(ours, { delimiter: d, relax_quotes: false })).toEqual([cells]);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('formula-injection protection', () => {
  it('prefixes text cells starting with = + - @ TAB CR', () => {
    for (const cell of ['=1+2', '+cmd', '-x', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://e.x")', '-', '+']) {
      expect(isFormulaLike(cell)).toBe(true);
      expect((parse(textCell(cell)) as string[][])[0]![0]).toBe(`'${cell}`);
    }
  });

  it('never alters plain numbers, signed or not, nor ordinary text', () => {
    for (const cell of ['-90', '+5', '-0.5', '.5', '10.', '0', '1500', 'Fall', 'S-1', 'a=b', '']) {
      expect(isFormulaLike(cell)).toBe(false);
      expect(textCell(cell)).toBe(csvCell(cell));
    }
  });
});

describe('outputHeaderLine', () => {
  it('names the input columns as the layout does, in file order, then the result columns', () => {
    const header = ['\tCredits_Enrolled ', ...HEADER.split(',').slice(0, 2), 'full_time_credits', 'Dependency_Status'];
    const line = outputHeaderLine(readHeader(header));
    expect((parse(line) as string[][])[0]).toEqual([
      'credits_enrolled',
      'student_id',
      'term_label',
      'full_time_credits',
      'dependency_status',
      ...RESULT_COLUMNS,
    ]);
    expect(RESULT_COLUMNS).toEqual([
      'row_status',
      'error_code',
      'error_field',
      'error_message',
      'annual_ft_credits',
      'reduced_annual_pct',
      'annual_basic_eligibility_sub',
      'annual_basic_eligibility_unsub',
      'annual_basic_eligibility_grad_plus',
      'show_both_options',
      'warnings',
      'enrollment_status',
      'enrollment_intensity_pct',
      'disbursement_pct',
      'equal_sub',
      'equal_unsub',
      'equal_grad_plus',
      'proportional_sub',
      'proportional_unsub',
      'proportional_grad_plus',
      'adjustment_sub',
      'adjustment_unsub',
      'adjustment_grad_plus',
      'adjustment_source_index',
      'adjustment_explanation',
      'final_term_overdisbursement',
      'term_warning',
    ]);
  });
});

describe('echo of a row sent as a raw line', () => {
  // The raw line is what the cells were split from; echoing it must give the same bytes as echoing the cells.
  const cell = fc.oneof(
    fc.string({ unit: 'grapheme' }).filter((c) => !c.includes(',')),
    fc.constantFrom('', '-90', '-x', '+5', '=1+2', '@a', '\tx', '\rx', 'a\rb', 'a"b', '"', 'a\nb', '2024-25', 'S1'),
  );
  it('is byte-identical to echoing the cells, for every width', () => {
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 9 }), (cells, width) => {
        const raw = cells.join(',');
        expect(raw.split(',')).toEqual(cells);
        expect(errorRowLine(cells, width, 'validation_error', 'f', 'm', raw)).toBe(
          errorRowLine(cells, width, 'validation_error', 'f', 'm'),
        );
      }),
      { numRuns: 2000 },
    );
  });
});

/** Parses one output line and names its result cells (the cells after the `width` echoed input cells). */
function resultCells(line: string, width: number): Record<string, string> {
  const row = (parse(line) as string[][])[0]!;
  expect(row).toHaveLength(width + RESULT_COLUMNS.length);
  return Object.fromEntries(RESULT_COLUMNS.map((name, i) => [name, row[width + i]!]));
}

// A result written by hand (not computed): the test is about where each value lands, not about the rules.
const TERM: TermResult = {
  label: 'Fall',
  enrollment_status: 'three_quarter_time',
  enrollment_intensity_pct: 75,
  disbursement_pct: 37.5,
  adjustment_sub: -12,
  adjustment_unsub: 0,
  adjustment_grad_plus: 7,
  adjustment_explanation: '=moved from term 2',
  adjustment_source_index: 1,
  credits_enrolled: 9,
  full_time_credits: 12,
  equal: { subsidized: 1313, unsubsidized: 750, grad_plus: 0 },
  proportional: { subsidized: 1200, unsubsidized: 800, grad_plus: 5 },
  final_term_overdisbursement: true,
  warning: 'term, with a comma',
};
const RESULT: CalculationResult = {
  annual_ft_credits: 24,
  reduced_annual_pct: 87.5,
  annual_basic_eligibility_sub: 3063,
  annual_basic_eligibility_unsub: 1750,
  annual_basic_eligibility_grad_plus: 0,
  show_both_options: false,
  terms: [TERM],
  total_equal: { subsidized: 1313, unsubsidized: 750, grad_plus: 0 },
  total_proportional: { subsidized: 1200, unsubsidized: 800, grad_plus: 5 },
  warnings: ['first', '-second'],
};

describe('the output-column table', () => {
  it('names each column once, and the OpenAPI list is the table with its notes', () => {
    expect(new Set([...RESULT_COLUMNS, ...CHECK_COLUMNS]).size).toBe(OUTPUT_COLUMNS.length);
    expect(BULK_OUTPUT_COLUMNS.map((c) => c.split(' ')[0])).toEqual([...RESULT_COLUMNS, ...CHECK_COLUMNS]);
    expect(CHECK_COLUMNS).toEqual(['check_status', 'check_detail', 'check_reason']);
    expect(BULK_OUTPUT_COLUMNS).toContain('proportional_sub (empty when not offered)');
    expect(BULK_OUTPUT_COLUMNS).toContain('warnings (joined with " | ")');
  });

  it('puts each value of an ok row under its own column, written by its type', () => {
    const line = okRowLine(['S1', 'Fall'], 2, studentResultCells(RESULT), TERM);
    expect((parse(line) as string[][])[0]!.slice(0, 2)).toEqual(['S1', 'Fall']);
    expect(resultCells(line, 2)).toEqual({
      row_status: 'ok',
      error_code: '',
      error_field: '',
      error_message: '',
      annual_ft_credits: '24',
      reduced_annual_pct: '87.5',
      annual_basic_eligibility_sub: '3063',
      annual_basic_eligibility_unsub: '1750',
      annual_basic_eligibility_grad_plus: '0',
      show_both_options: 'false',
      warnings: 'first | -second',
      enrollment_status: 'three_quarter_time',
      enrollment_intensity_pct: '75',
      disbursement_pct: '37.5',
      equal_sub: '1313',
      equal_unsub: '750',
      equal_grad_plus: '0',
      proportional_sub: '1200',
      proportional_unsub: '800',
      proportional_grad_plus: '5',
      adjustment_sub: '-12',
      adjustment_unsub: '0',
      adjustment_grad_plus: '7',
      adjustment_source_index: '1',
      adjustment_explanation: "'=moved from term 2",
      final_term_overdisbursement: 'true',
      term_warning: 'term, with a comma',
    });
  });

  it('leaves the proportional option and the adjustment source empty when the result has none', () => {
    const term: TermResult = { ...TERM, proportional: null, adjustment_source_index: null };
    const cells = resultCells(okRowLine(['S1'], 1, studentResultCells({ ...RESULT, terms: [term] }), term), 1);
    expect([cells.proportional_sub, cells.proportional_unsub, cells.proportional_grad_plus]).toEqual(['', '', '']);
    expect(cells.adjustment_source_index).toBe('');
    expect(cells.equal_sub).toBe('1313');
  });

  it('fills only the row-level columns of an error row, formula-protected', () => {
    const cells = resultCells(errorRowLine(['S1', ''], 2, 'validation_error', 'credits_enrolled', '-bad'), 2);
    for (const column of RESULT_OUTPUT_COLUMNS) {
      if (column.level !== 'row') expect(cells[column.name], column.name).toBe('');
    }
    expect([cells.row_status, cells.error_code, cells.error_field, cells.error_message]).toEqual([
      'error',
      'validation_error',
      'credits_enrolled',
      "'-bad",
    ]);
  });
});

describe('docs/csv-layout.md', () => {
  it('lists the result columns of the table, in order', () => {
    const readme = readFileSync(new URL('../../docs/csv-layout.md', import.meta.url), 'utf8');
    const start = readme.indexOf('<!-- output columns: one output-column table -->');
    const end = readme.indexOf('<!-- end of the output columns section -->');
    expect(start).toBeGreaterThanOrEqual(0);
    const listed = readme
      .slice(start, readme.indexOf('These result columns are one table', start))
      .match(/`[a-z_|]+`/g)!
      .map((token) => token.slice(1, -1))
      // `equal_sub|unsub|grad_plus` stands for equal_sub, equal_unsub, equal_grad_plus
      .flatMap((token) => {
        const [first, ...rest] = token.split('|');
        const prefix = first!.replace(/sub$/, '');
        return [first!, ...rest.map((part) => prefix + part)];
      })
      .filter((name) => name !== 'ok' && name !== 'error'); // row_status's values
    expect(end).toBeGreaterThan(start);
    expect(listed).toEqual(RESULT_COLUMNS);
  });
});

describe('bidirectional-control characters (shown inert on the page and the worksheet, kept in files)', () => {
  it('a student id and a term label holding them are echoed byte for byte, in CSV and NDJSON', async () => {
    const controls = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    const id = `S\u202e1${controls}`;
    const label = `Fall\u202e${controls}`;
    const text = [HEADER, row(id, label, '12'), row(id, 'Spring', '12'), ''].join('\n');
    const csv = (await runToString(text, createInlineRunner())).text;
    const lines = csv.split('\n');
    expect(lines[1]!.startsWith(`${id},${label},`)).toBe(true);
    expect(Buffer.from(lines[1]!.slice(0, id.length + label.length + 1))).toEqual(Buffer.from(`${id},${label}`));
    const [student] = parseNdjson((await runToString(text, createInlineRunner(), { format: 'ndjson' })).text);
    expect(student!.student_id).toBe(id);
    expect((student!.result as { terms: { label: string }[] }).terms[0]!.label).toBe(label);
  });
});
