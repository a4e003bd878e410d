/**
 * The result columns of the bulk CSV output (architecture.md "Bulk CSV layout (v1)"), one table row per column:
 * its name, its level and how its value is read. Every output row is the echoed input cells followed by these
 * columns in this order. The output header, the cells of ok rows and error rows, and the column list of the
 * OpenAPI description are all built from this table (src/bulk/output-csv.ts, src/api/openapi/bulk-prose.ts).
 *
 * Levels:
 *  - `row`: the row's outcome, filled on ok rows and error rows alike (status, error code, field, message);
 *  - `student`: read from the student's CalculationResult, the same on every row of the student;
 *  - `term`: read from the row's TermResult (row i of a student is its term i);
 *  - `check`: read from the student's shadow check (src/bulk/shadow-check.ts), the same on every row of the
 *    student. These columns are written only when the file's header has a sis_* column, after all the others.
 * On an error row the student, term and check columns are empty.
 *
 * A value is written by its type (output-csv.ts `formatCell`): a number as JavaScript prints it, a boolean as
 * `true`/`false`, null as an empty cell, a string as a text cell (quoted when needed, formula-protected).
 *
 * A new column is one entry below, at the place it takes in the file.
 */
import type { CalculationResult, TermResult } from '../domain/types.ts';
import type { ShadowCheck } from './shadow-check.ts';

/** A cell's value before it is written. */
export type CellValue = string | number | boolean | null;

/** The outcome of one output row, as the `row`-level columns read it. */
export type RowOutcome =
  | { readonly status: 'ok' }
  | { readonly status: 'error'; readonly code: string; readonly field: string; readonly message: string };

interface ColumnBase<N extends string> {
  readonly name: N;
  /** Shown after the name in the OpenAPI column list, in parentheses. */
  readonly note?: string;
}
export interface RowColumn<N extends string = string> extends ColumnBase<N> {
  readonly level: 'row';
  readonly read: (outcome: RowOutcome) => CellValue;
}
export interface StudentColumn<N extends string = string> extends ColumnBase<N> {
  readonly level: 'student';
  readonly read: (result: CalculationResult) => CellValue;
}
export interface TermColumn<N extends string = string> extends ColumnBase<N> {
  readonly level: 'term';
  readonly read: (term: TermResult) => CellValue;
}
export interface CheckColumn<N extends string = string> extends ColumnBase<N> {
  readonly level: 'check';
  readonly read: (check: ShadowCheck) => CellValue;
}
export type OutputColumn<N extends string = string> = RowColumn<N> | StudentColumn<N> | TermColumn<N> | CheckColumn<N>;

const row = <N extends string>(name: N, read: RowColumn['read'], note?: string): RowColumn<N> => ({
  name,
  level: 'row',
  read,
  ...(note === undefined ? {} : { note }),
});
const student = <N extends string>(name: N, read: StudentColumn['read'], note?: string): StudentColumn<N> => ({
  name,
  level: 'student',
  read,
  ...(note === undefined ? {} : { note }),
});
const term = <N extends string>(name: N, read: TermColumn['read'], note?: string): TermColumn<N> => ({
  name,
  level: 'term',
  read,
  ...(note === undefined ? {} : { note }),
});

const check = <N extends string>(name: N, read: CheckColumn['read'], note: string): CheckColumn<N> => ({
  name,
  level: 'check',
  read,
  note,
});

const errorPart = (o: RowOutcome, part: 'code' | 'field' | 'message'): string => (o.status === 'ok' ? '' : o[part]);

/** The result columns, in output order. */
export const OUTPUT_COLUMNS = [
  row('row_status', (o) => o.status, 'ok | error'),
  row('error_code', (o) => errorPart(o, 'code')),
  row('error_field', (o) => errorPart(o, 'field'), 'the CSV column at fault'),
  row('error_message', (o) => errorPart(o, 'message')),
  student('annual_ft_credits', (r) => r.annual_ft_credits),
  student('reduced_annual_pct', (r) => r.reduced_annual_pct),
  student('annual_basic_eligibility_sub', (r) => r.annual_basic_eligibility_sub),
  student('annual_basic_eligibility_unsub', (r) => r.annual_basic_eligibility_unsub),
  student('annual_basic_eligibility_grad_plus', (r) => r.annual_basic_eligibility_grad_plus),
  student('show_both_options', (r) => r.show_both_options),
  student('warnings', (r) => r.warnings.join(' | '), 'joined with " | "'),
  term('enrollment_status', (t) => t.enrollment_status),
  term('enrollment_intensity_pct', (t) => t.enrollment_intensity_pct),
  term('disbursement_pct', (t) => t.disbursement_pct),
  term('equal_sub', (t) => t.equal.subsidized),
  term('equal_unsub', (t) => t.equal.unsubsidized),
  term('equal_grad_plus', (t) => t.equal.grad_plus),
  term('proportional_sub', (t) => t.proportional?.subsidized ?? null, 'empty when not offered'),
  term('proportional_unsub', (t) => t.proportional?.unsubsidized ?? null, 'empty when not offered'),
  term('proportional_grad_plus', (t) => t.proportional?.grad_plus ?? null, 'empty when not offered'),
  term('adjustment_sub', (t) => t.adjustment_sub),
  term('adjustment_unsub', (t) => t.adjustment_unsub),
  term('adjustment_grad_plus', (t) => t.adjustment_grad_plus),
  term('adjustment_source_index', (t) => t.adjustment_source_index),
  term('adjustment_explanation', (t) => t.adjustment_explanation),
  term('final_term_overdisbursement', (t) => t.final_term_overdisbursement),
  term('term_warning', (t) => t.warning),
  check('check_status', (c) => c.status, 'match | mismatch | not_checked; only when the file has sis_* columns'),
  check('check_detail', (c) => c.detail, 'each differing field, school ≠ rules; only with sis_* columns'),
  check(
    'check_reason',
    (c) => c.reason,
    'the first reason that reproduces the school’s figures; only with sis_* columns',
  ),
] as const satisfies readonly OutputColumn[];

type AnyColumn = (typeof OUTPUT_COLUMNS)[number];
/** The columns every output has (all but the check columns), in output order. */
export type ResultOutputColumn = Exclude<AnyColumn, { level: 'check' }>;
export const RESULT_OUTPUT_COLUMNS: readonly ResultOutputColumn[] = OUTPUT_COLUMNS.filter(
  (c): c is ResultOutputColumn => c.level !== 'check',
);
/** The shadow check's columns, written after the others when the file has sis_* columns. */
export const CHECK_OUTPUT_COLUMNS: readonly CheckColumn[] = OUTPUT_COLUMNS.filter(
  (c): c is Extract<AnyColumn, { level: 'check' }> => c.level === 'check',
);

export type ResultColumn = ResultOutputColumn['name'];

/** The result columns' names, in output order (every file). */
export const RESULT_COLUMNS: readonly ResultColumn[] = RESULT_OUTPUT_COLUMNS.map((c) => c.name);

/** The check columns' names (files with sis_* columns). */
export const CHECK_COLUMNS: readonly string[] = CHECK_OUTPUT_COLUMNS.map((c) => c.name);

/** `name` or `name (note)`: how the OpenAPI description lists a column. */
export function describeColumn(column: OutputColumn): string {
  return column.note === undefined ? column.name : `${column.name} (${column.note})`;
}
