/**
 * CSV output of the bulk pipeline: RFC 4180 quoting (byte-identical to csv-stringify's default output for the
 * same cells, which the tests check) plus spreadsheet formula-injection protection on text cells.
 *
 * Formula protection (OWASP "CSV injection"): a text cell that starts with `=`, `+`, `-`, `@`, TAB or CR is
 * prefixed with a single quote `'` so a spreadsheet shows it as text instead of evaluating it — unless the cell
 * is a plain decimal number (`-90`, `+5`, `10.5`), which is left exactly as it is. It applies to echoed input
 * cells, ids, labels, messages and warnings; computed numeric cells are written as numbers and never altered.
 */
import type { CalculationResult, DisbursementOption, TermResult } from '../domain/types.ts';
import { RESULT_COLUMNS, type CsvLayout } from './csv-layout.ts';

const NEEDS_QUOTES = /[",\r\n]/;
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** RFC 4180 quoting: quoted when the cell holds a comma, a quote, CR or LF; quotes doubled. */
export function csvCell(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** True when a spreadsheet could read the cell as a formula (and it is not a plain number). */
export function isFormulaLike(value: string): boolean {
  if (value.length === 0) return false;
  const c = value.charCodeAt(0);
  // = + - @ TAB CR
  if (c !== 61 && c !== 43 && c !== 45 && c !== 64 && c !== 9 && c !== 13) return false;
  return !PLAIN_NUMBER.test(value);
}

/** A text cell: formula-protected, then quoted. */
export function textCell(value: string): string {
  return csvCell(isFormulaLike(value) ? `'${value}` : value);
}

/**
 * The output header line: the input columns in file order, named as the layout names them (lower case, whatever
 * the case or spacing of the input header), then the result columns.
 */
export function outputHeaderLine(layout: CsvLayout): string {
  return `${[...layout.columns, ...RESULT_COLUMNS].join(',')}\n`;
}

/** The echoed input cells of a row, padded or cut to the header's width, each followed by a comma. */
function echo(cells: readonly string[], width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    const cell = cells[i];
    out += cell === undefined || cell === '' ? ',' : `${textCell(cell)},`;
  }
  return out;
}

/**
 * A line whose cells (its split on commas) contain no character that needs quoting (quote, CR, LF) and none that
 * starts with a formula character (= + - @ TAB; CR is covered by the first test) echoes as itself:
 * `textCell(cell)` is `cell` for every cell, and the cells joined by commas are the line. Raw lines never hold a
 * quote or LF; the test does not rely on it.
 */
const RAW_NEEDS_CARE = /[\r\n"]|(?:^|,)[=+\-@\t]/;

/**
 * The echoed input cells of a row: `raw` (the line `cells` were split from, when the row came as a raw line)
 * followed by a comma when that is the same text as echo(cells, width), else echo(cells, width).
 */
function echoRow(cells: readonly string[], width: number, raw: string | undefined): string {
  if (raw !== undefined && cells.length === width && !RAW_NEEDS_CARE.test(raw)) return `${raw},`;
  return echo(cells, width);
}

/** Empty result columns after row_status..error_message (23 of them). */
const EMPTY_RESULTS = ','.repeat(RESULT_COLUMNS.length - 4);

/** One error row (`raw` as for okRowLine): the input echoed, status `error`, the code, field(s) and message, result columns empty. */
export function errorRowLine(
  cells: readonly string[],
  width: number,
  code: string,
  field: string,
  message: string,
  raw?: string,
): string {
  return `${echoRow(cells, width, raw)}error,${code},${textCell(field)},${textCell(message)}${EMPTY_RESULTS}\n`;
}

function option(o: DisbursementOption | null): string {
  return o === null ? ',,' : `${o.subsidized},${o.unsubsidized},${o.grad_plus}`;
}

/** The student-level result cells shared by every row of the student (annual_ft_credits..warnings). */
export function studentResultCells(result: CalculationResult): string {
  return (
    `${result.annual_ft_credits},${result.reduced_annual_pct},${result.annual_basic_eligibility_sub},` +
    `${result.annual_basic_eligibility_unsub},${result.annual_basic_eligibility_grad_plus},` +
    `${result.show_both_options ? 'true' : 'false'},${textCell(result.warnings.join(' | '))}`
  );
}

/** One ok row (`raw`: the line `cells` were split from, if any): the input echoed, status `ok`, the student-level cells, then the term's results. */
export function okRowLine(
  cells: readonly string[],
  width: number,
  studentCells: string,
  term: TermResult,
  raw?: string,
): string {
  return (
    `${echoRow(cells, width, raw)}ok,,,,${studentCells},${csvCell(term.enrollment_status)},` +
    `${term.enrollment_intensity_pct},${term.disbursement_pct},${option(term.equal)},${option(term.proportional)},` +
    `${term.adjustment_sub},${term.adjustment_unsub},${term.adjustment_grad_plus},` +
    `${term.adjustment_source_index === null ? '' : term.adjustment_source_index},` +
    `${textCell(term.adjustment_explanation)},${term.final_term_overdisbursement ? 'true' : 'false'},` +
    `${textCell(term.warning)}\n`
  );
}
