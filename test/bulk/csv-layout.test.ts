import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import {
  INPUT_COLUMNS,
  STUDENT_COLUMNS,
  TERM_COLUMNS,
  readHeader,
  validateStudentRows,
  type CsvLayout,
} from '../../src/bulk/csv-layout.ts';
import { HEADER } from './helpers.ts';
import { parseBoolean } from '../../src/bulk/cell-spellings.ts';
import { STUDENT_FIELDS, TERM_FIELDS } from '../../src/schema/fields.ts';
import { DEFAULT_POLICY, resolvePolicy } from '../../src/domain/policy.ts';

const layout: CsvLayout = readHeader(HEADER.split(','));

/** Cells of one row in HEADER order. */
function cells(values: Partial<Record<string, string>>): string[] {
  const defaults: Record<string, string> = {
    student_id: 'S1',
    term_label: 'Fall',
    full_time_credits: '12',
    credits_enrolled: '6',
    dependency_status: 'dependent',
    grade_level: 'first_year',
    subsidized_amount: '3500',
  };
  return HEADER.split(',').map((c) => (c in values ? values[c]! : (defaults[c] ?? '')));
}

function headerError(header: string[]): AppError {
  try {
    readHeader(header);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('readHeader accepted the header');
}

describe('readHeader', () => {
  it('matches names case-insensitively, ignoring surrounding spaces, in any order', () => {
    const l = readHeader([' Credits_Enrolled', 'STUDENT_ID', 'term_label ', 'Dependency_Status', 'full_time_credits']);
    expect(l.col.student_id).toBe(1);
    expect(l.col.credits_enrolled).toBe(0);
    expect(l.col.term_label).toBe(2);
    expect(l.col.total_limit).toBe(-1);
    expect(l.width).toBe(5);
    expect(l.header[0]).toBe(' Credits_Enrolled');
  });

  it('rejects an unknown column with 400 validation_error naming it', () => {
    const err = headerError([...HEADER.split(','), 'plus_denid']);
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation_error');
    expect(err.message).toContain('"plus_denid"');
    expect(err.fieldErrors).toEqual([
      { field: 'plus_denid', message: 'is not a column of the bulk CSV layout v1 (did you mean "plus_denied"?)' },
    ]);
    expect(err.message).toContain('add ?extra_columns=keep');
  });

  it('rejects each missing required column and a duplicate; an unnamed column (Excel’s empty trailing columns) is not an error', () => {
    const err = headerError(['student_id', 'Student_ID', '', 'term_label']);
    expect(err.status).toBe(400);
    expect(err.fieldErrors?.map((f) => f.field)).toEqual([
      'student_id',
      'full_time_credits',
      'credits_enrolled',
      'dependency_status',
    ]);
  });

  it('knows exactly the v1 columns', () => {
    expect(INPUT_COLUMNS).toEqual([
      ...HEADER.split(','),
      'final_period_of_program',
      'academic_year_credits',
      'health_professions_program',
      'academic_year_months',
      'award_year',
      'sis_reduced_annual_pct',
      'sis_option',
      'sis_sub',
      'sis_unsub',
      'sis_grad_plus',
    ]);
  });
});

/** One student row with `column` (added to HEADER when it is not there) set to `value`. */
function withCell(column: string, value: string) {
  const header = HEADER.split(',');
  if (header.includes(column)) return validateStudentRows([cells({ [column]: value })], [2], layout);
  return validateStudentRows([[...cells({}), value]], [2], readHeader([...header, column]));
}

describe('the layout from the request-field table', () => {
  it('has one column per request field with a column, term columns first, in the table’s order', () => {
    expect(TERM_COLUMNS).toEqual(TERM_FIELDS.map((f) => f.column));
    expect(STUDENT_COLUMNS).toEqual(STUDENT_FIELDS.filter((f) => f.column !== '').map((f) => f.column));
    expect(INPUT_COLUMNS.slice(1, 1 + TERM_COLUMNS.length + STUDENT_COLUMNS.length)).toEqual([
      ...TERM_COLUMNS,
      ...STUDENT_COLUMNS,
    ]);
  });

  it('reads every boolean column with the same spellings and every whole-number column with its range', () => {
    for (const field of STUDENT_FIELDS) {
      if (field.type.kind === 'boolean') {
        const yes = withCell(field.column, 'YES'); // (final_period_of_program=yes then wants academic_year_credits)
        expect(yes.ok ? [] : yes.errors.filter((e) => e.field === field.column), field.name).toEqual([]);
        if (yes.ok) expect(yes.input[field.name], field.name).toBe(true);
        const bad = withCell(field.column, 'maybe');
        expect(bad.ok ? [] : bad.errors.map((e) => e.message), field.name).toEqual([
          'must be true or false (also accepted: yes/no, y/n, 1/0)',
        ]);
      }
      if (field.type.kind === 'integer') {
        const bad = withCell(field.column, 'two');
        expect(bad.ok ? [] : bad.errors.map((e) => e.message), field.name).toEqual([
          `must be a whole number from ${field.type.min} to ${field.type.max}, or empty`,
        ]);
      }
    }
  });
});

describe('parseBoolean', () => {
  it('accepts true/false, yes/no, y/n, 1/0 in any case and nothing else', () => {
    for (const t of ['true', 'TRUE', 'Yes', 'YES', 'y', 'Y', '1']) expect(parseBoolean(t)).toBe(true);
    for (const f of ['false', 'False', 'no', 'NO', 'n', 'N', '0']) expect(parseBoolean(f)).toBe(false);
    for (const x of ['', 't', 'f', '2', ' true', 'Y ', 'truee', 'oui']) expect(parseBoolean(x)).toBeUndefined();
  });
});

describe('SIS spellings of enum values (CSV only)', () => {
  const input = (values: Partial<Record<string, string>>) => {
    const v = validateStudentRows([cells(values)], [2], layout);
    return v.ok ? v.input : v.errors;
  };

  it('reads every enum value in any letter case', () => {
    expect(input({ dependency_status: 'Dependent' })).toMatchObject({ dependency_status: 'dependent' });
    expect(input({ dependency_status: 'INDEPENDENT' })).toMatchObject({ dependency_status: 'independent' });
    expect(input({ degree_level: 'Graduate', grade_level: '' })).toMatchObject({ degree_level: 'graduate' });
    expect(input({ grade_level: 'Third_Year_And_Beyond' })).toMatchObject({ grade_level: 'third_year_and_beyond' });
  });

  it('reads grade_level as a COD grade level code: 0 and 1 first year, 2 second, 3 to 5 third and beyond', () => {
    const grades = ['0', '1', '2', '3', '4', '5'].map(
      (code) => (input({ grade_level: code }) as { grade_level: string }).grade_level,
    );
    expect(grades).toEqual([
      'first_year',
      'first_year',
      'second_year',
      'third_year_and_beyond',
      'third_year_and_beyond',
      'third_year_and_beyond',
    ]);
  });

  it('refuses anything else once, naming the column and the accepted spellings', () => {
    expect(input({ dependency_status: 'dep' })).toEqual([
      { row: 0, field: 'dependency_status', message: 'must be one of: dependent, independent (any letter case)' },
    ]);
    expect(input({ grade_level: '9' })).toEqual([
      {
        row: 0,
        field: 'grade_level',
        message:
          'must be one of: first_year, second_year, third_year_and_beyond (any letter case), or a COD grade level ' +
          'code (0 and 1 = first_year, 2 = second_year, 3–5 = third_year_and_beyond)',
      },
    ]);
    expect(input({ grade_level: '6' })).toEqual([
      {
        row: 0,
        field: 'grade_level',
        message: expect.stringMatching(
          /^is COD grade level code 6, a graduate or professional level: set degree_level/,
        ),
      },
    ]);
    // The spellings are the value's, not a looser reading: surrounding spaces stay an error, as in JSON.
    expect(input({ dependency_status: ' dependent' })).toEqual([
      expect.objectContaining({ field: 'dependency_status' }),
    ]);
    expect(input({ grade_level: '2.0' })).toEqual([expect.objectContaining({ field: 'grade_level' })]);
  });

  it('a later row may write the same value another way; a different value is still an error', () => {
    const rows = [
      cells({ dependency_status: 'Dependent', grade_level: '1', plus_denied: 'Y' }),
      cells({ term_label: 'Spring', dependency_status: 'dependent', grade_level: 'FIRST_YEAR', plus_denied: 'yes' }),
    ];
    const v = validateStudentRows(rows, [2, 3], layout);
    expect(v.ok && [v.input.dependency_status, v.input.grade_level, v.input.plus_denied]).toEqual([
      'dependent',
      'first_year',
      true,
    ]);
    const differ = validateStudentRows(
      [rows[0]!, cells({ term_label: 'Spring', dependency_status: 'Independent', grade_level: '2', plus_denied: 'N' })],
      [2, 3],
      layout,
    );
    expect(!differ.ok && differ.errors.map((e) => [e.row, e.field])).toEqual([
      [1, 'dependency_status'],
      [1, 'grade_level'],
      [1, 'plus_denied'],
    ]);
  });
});

describe('validateStudentRows', () => {
  it('builds the same request as the JSON endpoint: decimal strings stay exact, empty cells are null or default', () => {
    const v = validateStudentRows(
      [
        cells({ credits_enrolled: '10.5', actual_final_credits: '', prior_disbursement_sub: '' }),
        cells({ term_label: 'Spring', credits_enrolled: '7.25', dependency_status: '', grade_level: '' }),
      ],
      [2, 3],
      layout,
    );
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.input).toMatchObject({
      dependency_status: 'dependent',
      degree_level: 'undergraduate',
      grade_level: 'first_year',
      academic_year_terms: null,
      cost_of_attendance: null,
      is_legacy_borrower: false,
      plus_denied: false,
      subsidized_amount: '3500',
      total_limit: null,
    });
    expect(v.input.terms).toEqual([
      {
        label: 'Fall',
        full_time_credits: '12',
        credits_enrolled: '10.5',
        actual_final_credits: null,
        prior_disbursement_sub: null,
        prior_disbursement_unsub: null,
        prior_disbursement_grad_plus: null,
      },
      {
        label: 'Spring',
        full_time_credits: '12',
        credits_enrolled: '7.25',
        actual_final_credits: null,
        prior_disbursement_sub: null,
        prior_disbursement_unsub: null,
        prior_disbursement_grad_plus: null,
      },
    ]);
  });

  it('reads booleans in every accepted spelling and academic_year_terms as a number', () => {
    const v = validateStudentRows(
      [cells({ is_legacy_borrower: 'Yes', plus_denied: '1', academic_year_terms: '2.0' })],
      [2],
      layout,
    );
    expect(v.ok && [v.input.is_legacy_borrower, v.input.plus_denied, v.input.academic_year_terms]).toEqual([
      true,
      true,
      2,
    ]);
  });

  it('names the CSV column and the row of every schema error (terms[i].x → row i, column x)', () => {
    const v = validateStudentRows(
      [cells({ credits_enrolled: 'six' }), cells({ term_label: '', full_time_credits: '0', grade_level: '' })],
      [5, 6],
      layout,
    );
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.errors.map((e) => [e.row, e.field])).toEqual(
      expect.arrayContaining([
        [0, 'credits_enrolled'],
        [1, 'term_label'],
        [1, 'full_time_credits'],
      ]),
    );
    expect(v.errors.find((e) => e.field === 'term_label')?.message).toBe('is required');
  });

  it('reports a bad boolean, a non-numeric academic_year_terms, an empty student_id and a missing grade_level', () => {
    const v = validateStudentRows(
      [cells({ student_id: '', plus_denied: 'maybe', academic_year_terms: 'two', grade_level: '' })],
      [9],
      layout,
    );
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.errors.map((e) => e.field).sort()).toEqual(
      ['academic_year_terms', 'grade_level', 'plus_denied', 'student_id'].sort(),
    );
    expect(v.errors.find((e) => e.field === 'plus_denied')?.message).toMatch(/true or false/);
  });

  it('a student-level value that contradicts the first row is an error on the later row', () => {
    const v = validateStudentRows(
      [cells({}), cells({ term_label: 'Spring', dependency_status: 'independent', subsidized_amount: '3500' })],
      [4, 5],
      layout,
    );
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.errors).toEqual([
      {
        row: 1,
        field: 'dependency_status',
        message: expect.stringMatching(/is "independent" but the student's first row \(line 4\) has "dependent"/),
      },
    ]);
  });

  it('a student-level value that only appears on a later row is an error', () => {
    const v = validateStudentRows(
      [cells({ total_limit: '' }), cells({ term_label: 'Spring', total_limit: '5500' })],
      [2, 3],
      layout,
    );
    expect(!v.ok && v.errors.map((e) => [e.row, e.field])).toEqual([[1, 'total_limit']]);
  });

  it('term-count errors are reported on the first row at student_id', () => {
    const five = ['A', 'B', 'C', 'D', 'E'].map((t) => cells({ term_label: t }));
    const v = validateStudentRows(five, [2, 3, 4, 5, 6], layout);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.errors).toEqual([
      { row: 0, field: 'student_id', message: expect.stringMatching(/at most 4 terms.*one row per term/) },
    ]);
  });

  it('rejects exactly what the JSON schema rejects in a decimal cell (no trimming, no exponent)', () => {
    for (const bad of [' 6', '6 ', '1e1', '+.', '6.1234567', '1,5']) {
      const v = validateStudentRows([cells({ credits_enrolled: bad })], [2], layout);
      expect(!v.ok && v.errors.map((e) => e.field)).toEqual(['credits_enrolled']);
    }
  });

  describe('health professions columns (rules.md §2.1) and the file policy (§10)', () => {
    const hp = readHeader([...HEADER.split(','), 'health_professions_program', 'Academic_Year_Months']);
    const hpCells = (values: Partial<Record<string, string>>) => [
      ...cells({ degree_level: 'professional', grade_level: '', is_legacy_borrower: 'yes', ...values }),
      values.health_professions_program ?? '',
      values.academic_year_months ?? '',
    ];

    it('maps health_professions_program (any letter case) and academic_year_months (a number, like academic_year_terms) to the request', () => {
      const v = validateStudentRows(
        [hpCells({ health_professions_program: 'Dentistry', academic_year_months: '11.0' })],
        [2],
        hp,
      );
      expect(v.ok && [v.input.health_professions_program, v.input.academic_year_months]).toEqual(['dentistry', 11]);
    });

    it('empty cells (or no columns) are the defaults: null', () => {
      const v = validateStudentRows([hpCells({})], [2], hp);
      expect(v.ok && [v.input.health_professions_program, v.input.academic_year_months]).toEqual([null, null]);
      const plain = validateStudentRows([cells({})], [2], layout);
      expect(plain.ok && [plain.input.health_professions_program, plain.input.academic_year_months]).toEqual([
        null,
        null,
      ]);
    });

    it('a program outside the list, a month count outside 9 to 12 or not a number is an error naming the column', () => {
      for (const [column, value] of [
        ['health_professions_program', 'surgery'],
        ['academic_year_months', '13'],
        ['academic_year_months', '10.5'],
        ['academic_year_months', 'eleven'],
      ] as const) {
        const v = validateStudentRows([hpCells({ [column]: value })], [7], hp);
        expect(!v.ok && v.errors.map((e) => [e.row, e.field])).toEqual([[0, column]]);
      }
      const words = validateStudentRows([hpCells({ academic_year_months: 'eleven' })], [7], hp);
      expect(!words.ok && words.errors[0]!.message).toBe('must be a whole number from 9 to 12, or empty');
    });

    it('every student of a file gets the file policy; without one, the default', () => {
      const policy = resolvePolicy({ remainder_placement: 'last_term', grad_plus_gap: 'before_reduction' });
      const v = validateStudentRows([cells({})], [2], layout, policy);
      expect(v.ok && v.input.policy).toBe(policy);
      const none = validateStudentRows([cells({})], [2], layout);
      expect(none.ok && none.input.policy).toBe(DEFAULT_POLICY);
    });
  });
});
