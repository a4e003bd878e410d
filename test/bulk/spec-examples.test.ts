/**
 * rules 2026-27.3 in the bulk pipeline: the worked examples printed under a school policy, each as its own file with
 * that policy; the invalid examples of examples.json as CSV students (error rows and
 * NDJSON envelopes naming the CSV columns), and the two student-level columns of rules.md §2.3
 * (final_period_of_program, academic_year_credits) plus the §7 warning for a missing subsidized_amount, in CSV
 * and NDJSON. (The valid examples run through test/bulk/pipeline.test.ts and test/bulk/http.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { createInlineRunner } from '../../src/bulk/runners/inline.ts';
import { type PolicyChoices, policyText, resolvePolicy } from '../../src/domain/policy.ts';
import {
  CSV_INVALID_EXAMPLES,
  POLICY_EXAMPLES,
  examplesCsv,
  expectRowsMatchExample,
  withoutFreeText,
} from './examples.ts';
import { parseNdjson, parseOutput, runToString } from './helpers.ts';

const inline = createInlineRunner();

const NO_SUBSIDIZED = /subsidized_amount was not provided, so no subsidized eligibility was assumed/;

describe('worked examples printed under a school policy, one file each with that policy', () => {
  it.each(POLICY_EXAMPLES.map((e) => [e.id, e] as const))(
    '%s: CSV and NDJSON give the published figures',
    async (_id, ex) => {
      const policy = resolvePolicy((ex.request as { policy?: PolicyChoices }).policy);
      const csv = examplesCsv([ex]);
      const rows = parseOutput((await runToString(csv, inline, { policy })).text);
      expectRowsMatchExample(rows, ex);
      expect(rows[0]!.warnings).toContain(`School policy in force: ${policyText(policy)}.`);
      const [line] = parseNdjson((await runToString(csv, inline, { format: 'ndjson', policy })).text);
      expect(withoutFreeText(line!.result)).toEqual(ex.expected);
    },
  );

  it('without its policy the same file gets the exact fraction (HB-CH5-EX6: 24/36 → 3,667 / 4,666)', async () => {
    const ex = POLICY_EXAMPLES.find((e) => e.id === 'HB-CH5-EX6')!;
    const rows = parseOutput((await runToString(examplesCsv([ex]), inline)).text);
    // rules.md §2.3: S' = round(5,500 × 24/36) = 3,667; C' = round(12,500 × 24/36) = 8,333; unsub 8,333 − 3,667.
    expect([rows[0]!.annual_basic_eligibility_sub, rows[0]!.annual_basic_eligibility_unsub]).toEqual(['3667', '4666']);
  });
});

describe('invalid examples of examples.json as CSV students', () => {
  it.each(CSV_INVALID_EXAMPLES.map((e) => [e.id, e] as const))(
    '%s: every row is an error row and the listed columns are named (CSV and NDJSON)',
    async (_id, ex) => {
      const csv = examplesCsv([ex]);
      const rows = parseOutput((await runToString(csv, inline)).text);
      expect(rows).toHaveLength(ex.request.terms.length);
      expect(rows.every((r) => r.row_status === 'error' && r.error_code === 'validation_error')).toBe(true);
      const named = rows.flatMap((r) => r.error_field.split(' | '));
      expect(named).toEqual(expect.arrayContaining(ex.expected_columns));

      const [line] = parseNdjson((await runToString(csv, inline, { format: 'ndjson' })).text);
      expect(line!.result).toBeNull();
      const envelope = line!.error as { code: string; field_errors: { field: string }[] };
      expect(envelope.code).toBe('validation_error');
      expect(envelope.field_errors.map((e) => e.field)).toEqual(expect.arrayContaining(ex.expected_columns));
    },
  );
});

const FINAL_HEADER =
  'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,subsidized_amount,' +
  'final_period_of_program,academic_year_credits';

describe('§2.3 columns final_period_of_program and academic_year_credits', () => {
  it('prorate the final period (Metro State: 1,833 / 2,334), booleans in any accepted spelling', async () => {
    const csv = [
      FINAL_HEADER,
      'METRO,Fall,12,8,independent,third_year_and_beyond,5500,yes,24',
      // Not the final period: the normal 8/12 = 67% reduction → 3,685 / 4,690.
      'REDUCED,Fall,12,8,independent,third_year_and_beyond,5500,0,',
      // The flag without academic_year_credits is an error for the student, at that column.
      'MISSING,Fall,12,8,independent,third_year_and_beyond,5500,TRUE,',
      'BADBOOL,Fall,12,8,independent,third_year_and_beyond,5500,maybe,24',
      '',
    ].join('\n');
    const rows = parseOutput((await runToString(csv, inline)).text);
    const byId = Object.fromEntries(rows.map((r) => [r.student_id, r]));
    expect(byId.METRO).toMatchObject({
      row_status: 'ok',
      reduced_annual_pct: '100',
      annual_basic_eligibility_sub: '1833',
      // rules.md §2.3 (2026-27.3): C' = round(12,500 × 8/24) = 4,167, unsub 4,167 − 1,833.
      annual_basic_eligibility_unsub: '2334',
      show_both_options: 'false',
      final_period_of_program: 'yes',
      academic_year_credits: '24',
    });
    expect(byId.METRO!.warnings).toMatch(/Final period of the program/);
    expect(byId.REDUCED).toMatchObject({
      reduced_annual_pct: '67',
      annual_basic_eligibility_sub: '3685',
      annual_basic_eligibility_unsub: '4690',
    });
    expect([byId.MISSING!.row_status, byId.MISSING!.error_field]).toEqual(['error', 'academic_year_credits']);
    expect([byId.BADBOOL!.row_status, byId.BADBOOL!.error_field]).toEqual(['error', 'final_period_of_program']);

    const nd = parseNdjson((await runToString(csv, inline, { format: 'ndjson' })).text);
    const metro = nd.find((l) => l.student_id === 'METRO')!.result as Record<string, unknown>;
    expect(metro).toMatchObject({ annual_basic_eligibility_sub: 1833, annual_basic_eligibility_unsub: 2334 });
    const missing = nd.find((l) => l.student_id === 'MISSING')!.error as { field_errors: { field: string }[] };
    expect(missing.field_errors.map((e) => e.field)).toEqual(['academic_year_credits']);
  });
});

describe('§7 an undergraduate without subsidized_amount', () => {
  it('warns when the column is missing or the cell empty, not for an explicit 0', async () => {
    const withColumn = [
      'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level,subsidized_amount',
      'EMPTY,Fall,12,12,dependent,first_year,',
      'ZERO,Fall,12,12,dependent,first_year,0',
      '',
    ].join('\n');
    const withoutColumn = [
      'student_id,term_label,full_time_credits,credits_enrolled,dependency_status,grade_level',
      'NOCOLUMN,Fall,12,12,dependent,first_year',
      '',
    ].join('\n');
    const rows = [
      ...parseOutput((await runToString(withColumn, inline)).text),
      ...parseOutput((await runToString(withoutColumn, inline)).text),
    ];
    const warned = Object.fromEntries(rows.map((r) => [r.student_id, NO_SUBSIDIZED.test(r.warnings)]));
    expect(warned).toEqual({ EMPTY: true, ZERO: false, NOCOLUMN: true });
    // Either way the whole 5,500 combined limit is unsubsidized.
    expect(rows.map((r) => [r.annual_basic_eligibility_sub, r.annual_basic_eligibility_unsub])).toEqual([
      ['0', '5500'],
      ['0', '5500'],
      ['0', '5500'],
    ]);
    const nd = parseNdjson((await runToString(withoutColumn, inline, { format: 'ndjson' })).text);
    expect((nd[0]!.result as { warnings: string[] }).warnings.some((w) => NO_SUBSIDIZED.test(w))).toBe(true);
  });
});
