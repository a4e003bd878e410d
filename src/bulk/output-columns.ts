/**
 * The result columns of the bulk CSV output (architecture.md "Bulk CSV layout (v1)"), one table row per column:
 * its name, its level and how its value is read. Every output row is the echoed input cells followed by these
 * columns in this order. The output header, the cells of ok rows and error rows, and the column list of the
 * OpenAPI description are all built from this table (src/bulk/output-csv.ts, src/api/openapi/bulk-prose.ts).
 *
 * Levels:
 *  - `row`: the row's outcome, filled on ok rows and error rows alike (status, error code, field, message);
 *  - `student`: read from the student's CalculationResult, the same on every row of the student;
 *  - `term`: read from the row's TermResult (row i of a student is its term i).
 * On an error row the student and term columns are empty.
 *
 * A value is written by its type (output-csv.ts `formatCell`): a number as JavaScript prints it, a boolean as
 * `true`/`false`, null as an empty cell, a string as a text cell (quoted when needed, formula-protected).
 *
 * A new column is one entry below, at the place it takes in the file.
 */
import type { CalculationResult, TermResult } from '../domain/types.ts';

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
export type OutputColumn<N extends string = string> = RowColumn<N> | StudentColumn<N> | TermColumn<N>;

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
] as const satisfies readonly OutputColumn[];

export type ResultColumn = (typeof OUTPUT_COLUMNS)[number]['name'];

/** The result columns' names, in output order. */
export const RESULT_COLUMNS: readonly ResultColumn[] = OUTPUT_COLUMNS.map((c) => c.name);

/** `name` or `name (note)`: how the OpenAPI description lists a column. */
export function describeColumn(column: OutputColumn): string {
  return column.note === undefined ? column.name : `${column.name} (${column.note})`;
}
