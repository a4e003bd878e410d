/**
 * examples.json (the spec's worked examples) as bulk CSV, and the check of a student's CSV output rows against an
 * example's expected result. Expected values come from examples.json, never from the code.
 */
import { expect } from 'vitest';
import { INVALID_EXAMPLES, WORKED_EXAMPLES, type WorkedExample } from '../../src/api/openapi/worked-examples.ts';
import { HEADER, type OutputRow } from './helpers.ts';

export type Example = WorkedExample;
type ExampleOption = { subsidized: number; unsubsidized: number; grad_plus: number };

/**
 * The spec's worked examples that one file can carry together: those without a school policy (a file has one
 * policy, given as query parameters, rules.md §10). src/api/openapi/worked-examples.json is a verbatim copy of
 * examples.json, checked by test/api.
 */
export const EXAMPLES: Example[] = WORKED_EXAMPLES.filter((e) => !('policy' in e.request));

/** The examples printed under a school policy: each is its own file with `policy.<option>` query parameters. */
export const POLICY_EXAMPLES: Example[] = WORKED_EXAMPLES.filter((e) => 'policy' in e.request);

/** `?policy.<option>=<value>&…` for an example's policy (empty for none). */
export function policyQuery(ex: Example): string {
  const policy = (ex.request as { policy?: Record<string, string> }).policy ?? {};
  const pairs = Object.entries(policy).map(([k, v]) => `policy.${k}=${encodeURIComponent(v)}`);
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value);
}

/**
 * The bulk header plus the rules.md §2.3 student-level columns (the final-period examples need them) and the §2.1
 * health-professions ones (the dentistry example).
 */
export const EXAMPLES_HEADER = `${HEADER},final_period_of_program,academic_year_credits,health_professions_program,academic_year_months`;

/** One CSV row per term of each example, student_id = example id; student-level values on every row. */
export function examplesCsv(
  examples: readonly { id: string; request: { terms: readonly object[] } }[] = EXAMPLES,
  eol = '\n',
): string {
  const columns = EXAMPLES_HEADER.split(',');
  const lines = [EXAMPLES_HEADER];
  for (const ex of examples) {
    for (const term of ex.request.terms) {
      lines.push(
        columns
          .map((c) => {
            if (c === 'student_id') return ex.id;
            if (c === 'term_label') return cell((term as Record<string, unknown>).label);
            if (c in term) return cell((term as Record<string, unknown>)[c]);
            return cell((ex.request as Record<string, unknown>)[c]);
          })
          .join(','),
      );
    }
  }
  return lines.join(eol) + eol;
}

/**
 * The invalid examples that a CSV file can express, with the CSV column each expected field path names: `terms[i].x` → column x on row i,
 * `terms` → student_id (the count error), any other path → the column of the same name.
 */
export const CSV_INVALID_EXAMPLES = INVALID_EXAMPLES.filter(
  // INV-03: an unknown column rejects the whole file; INV-36: a file's policy is its query (a 400 before any row,
  // test/api/policy-query.test.ts), never a column.
  (e) => e.id !== 'INV-03' && e.id !== 'INV-36',
).map((e) => ({
  ...e,
  request: e.request as { terms: readonly object[] },
  expected_columns: e.expected_field_paths.map((path) =>
    path === 'terms' ? 'student_id' : path.replace(/^terms\[\d+\]\./, '').replace(/^label$/, 'term_label'),
  ),
}));

/** Checks the output rows of one student (CSV, parsed) against an example's expected numbers. */
export function expectRowsMatchExample(rows: OutputRow[], ex: Example): void {
  const e = ex.expected;
  expect(rows.length, ex.id).toBe(e.terms.length);
  rows.forEach((r, i) => {
    const t = e.terms[i]!;
    const option = (o: ExampleOption | null) =>
      o === null ? ['', '', ''] : [String(o.subsidized), String(o.unsubsidized), String(o.grad_plus)];
    expect(
      {
        row_status: r.row_status,
        annual_ft_credits: r.annual_ft_credits,
        reduced_annual_pct: r.reduced_annual_pct,
        annual_basic_eligibility_sub: r.annual_basic_eligibility_sub,
        annual_basic_eligibility_unsub: r.annual_basic_eligibility_unsub,
        annual_basic_eligibility_grad_plus: r.annual_basic_eligibility_grad_plus,
        show_both_options: r.show_both_options,
        enrollment_status: r.enrollment_status,
        enrollment_intensity_pct: r.enrollment_intensity_pct,
        disbursement_pct: r.disbursement_pct,
        equal: [r.equal_sub, r.equal_unsub, r.equal_grad_plus],
        proportional: [r.proportional_sub, r.proportional_unsub, r.proportional_grad_plus],
        adjustment: [r.adjustment_sub, r.adjustment_unsub, r.adjustment_grad_plus],
        adjustment_source_index: r.adjustment_source_index,
        final_term_overdisbursement: r.final_term_overdisbursement,
      },
      `${ex.id} term ${i}`,
    ).toEqual({
      row_status: 'ok',
      annual_ft_credits: String(e.annual_ft_credits),
      reduced_annual_pct: String(e.reduced_annual_pct),
      annual_basic_eligibility_sub: String(e.annual_basic_eligibility_sub),
      annual_basic_eligibility_unsub: String(e.annual_basic_eligibility_unsub),
      annual_basic_eligibility_grad_plus: String(e.annual_basic_eligibility_grad_plus ?? 0),
      show_both_options: String(e.show_both_options),
      enrollment_status: t.enrollment_status,
      enrollment_intensity_pct: String(t.enrollment_intensity_pct),
      disbursement_pct: String(t.disbursement_pct),
      equal: option(t.equal),
      proportional: option(t.proportional),
      adjustment: [String(t.adjustment_sub), String(t.adjustment_unsub), String(t.adjustment_grad_plus)],
      adjustment_source_index: t.adjustment_source_index === null ? '' : String(t.adjustment_source_index),
      final_term_overdisbursement: String(t.final_term_overdisbursement),
    });
  });
}

/** Drops the free-text fields (their wording is the implementation's, examples.json leaves them out). */
export function withoutFreeText(result: unknown): unknown {
  const r = structuredClone(result) as Record<string, unknown> & { terms: Record<string, unknown>[] };
  delete r.warnings;
  for (const t of r.terms) {
    delete t.warning;
    delete t.adjustment_explanation;
  }
  return r;
}
