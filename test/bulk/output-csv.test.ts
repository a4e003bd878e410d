import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { parse } from 'csv-parse/sync';
import { csvCell, errorRowLine, isFormulaLike, outputHeaderLine, textCell } from '../../src/bulk/output-csv.ts';
import { RESULT_COLUMNS, readHeader } from '../../src/bulk/csv-layout.ts';
import { HEADER } from './helpers.ts';

describe('csvCell', () => {
  it('quotes exactly like csv-stringify and reads back with csv-parse', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('"', ',', '\n', '\r\n', 'a"b', ' ', '')), { minLength: 2 }),
        (cells) => {
          const ours = cells.map(csvCell).join(',') + '\n';
          expect(ours).toBe(stringify([cells]));
          expect(parse(ours, { relax_quotes: false })).toEqual([cells]);
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
