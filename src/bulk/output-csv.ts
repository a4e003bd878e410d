/**
 * CSV output of the bulk pipeline: RFC 4180 quoting (byte-identical to csv-stringify's default output for the
 * same cells, which the tests check) plus spreadsheet formula-injection protection on text cells.
 *
 * Formula protection (OWASP "CSV injection"): a text cell that starts with `=`, `+`, `-`, `@`, TAB or CR is
 * prefixed with a single quote `'` so a spreadsheet shows it as text instead of evaluating it — unless the cell
 * is a plain decimal number (`-90`, `+5`, `10.5`), which is left exactly as it is. It applies to echoed input
 * cells, ids, labels, messages and warnings; computed numeric cells are written as numbers and never altered.
 *
 * Delimiter: a comma unless the file's dialect says otherwise (`d`, the output delimiter of csv-dialect.ts: a
 * semicolon file is answered with semicolons); a cell holding the delimiter is quoted.
 */
import type { CalculationResult, TermResult } from '../domain/types.ts';
import type { CsvDelimiter } from './csv-dialect.ts';
import type { CsvLayout } from './csv-layout.ts';
import {
  CHECK_COLUMNS,
  CHECK_OUTPUT_COLUMNS,
  RESULT_OUTPUT_COLUMNS as OUTPUT_COLUMNS,
  RESULT_COLUMNS,
  type CellValue,
  type RowOutcome,
} from './output-columns.ts';
import { hasSisColumns, type ShadowCheck } from './shadow-check.ts';

/** The characters that make a cell quoted, by delimiter. */
const NEEDS_QUOTES: Readonly<Record<CsvDelimiter, RegExp>> = {
  ',': /[",\r\n]/,
  ';': /[";\r\n]/,
  '\t': /["\t\r\n]/,
};
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** RFC 4180 quoting: quoted when the cell holds the delimiter, a quote, CR or LF; quotes doubled. */
export function csvCell(value: string, d: CsvDelimiter = ','): string {
  return NEEDS_QUOTES[d].test(value) ? `"${value.replaceAll('"', '""')}"` : value;
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
export function textCell(value: string, d: CsvDelimiter = ','): string {
  return csvCell(isFormulaLike(value) ? `'${value}` : value, d);
}

/**
 * The output header line: the input columns in file order, named as the layout names them (lower case, whatever
 * the case or spacing of the input header), then the result columns.
 */
export function outputHeaderLine(layout: CsvLayout, d: CsvDelimiter = ','): string {
  const inputs = layout.outputNames?.map((name) => textCell(name, d)) ?? layout.columns;
  const check = hasSisColumns(layout) ? CHECK_COLUMNS : [];
  return `${[...inputs, ...RESULT_COLUMNS, ...check].join(d)}\n`;
}

/**
 * A result cell, written by its value's type: a number as JavaScript prints it (never altered), a boolean as
 * true/false, null as an empty cell, a string as a text cell.
 */
export function formatCell(value: CellValue, d: CsvDelimiter = ','): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return textCell(value, d);
  if (value === null) return '';
  return value ? 'true' : 'false';
}

/**
 * The check columns' cells, each preceded by the delimiter (appended to a row of a file with sis_* columns): the
 * student's check, or empty cells (error rows) when `check` is null.
 */
export function checkCellsText(check: ShadowCheck | null, d: CsvDelimiter = ','): string {
  let out = '';
  for (const column of CHECK_OUTPUT_COLUMNS) out += `${d}${check === null ? '' : formatCell(column.read(check), d)}`;
  return out;
}

/** The echoed input cells of a row, padded or cut to the header's width, each followed by the delimiter. */
function echo(cells: readonly string[], width: number, d: CsvDelimiter): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    const cell = cells[i];
    out += cell === undefined || cell === '' ? d : `${textCell(cell, d)}${d}`;
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
 * The echoed input cells of a row: `raw` (the line `cells` were split from, when the row came as a raw line: a
 * comma file) followed by a comma when that is the same text as echo(cells, width) with commas, else echo().
 */
function echoRow(cells: readonly string[], width: number, raw: string | undefined, d: CsvDelimiter): string {
  if (raw !== undefined && d === ',' && cells.length === width && !RAW_NEEDS_CARE.test(raw)) return `${raw},`;
  return echo(cells, width, d);
}

/** The error row's result cells: the row-level columns from the outcome, the student and term columns empty. */
function errorResultCells(outcome: RowOutcome, d: CsvDelimiter): string {
  let out = '';
  for (let i = 0; i < OUTPUT_COLUMNS.length; i++) {
    const column = OUTPUT_COLUMNS[i]!;
    if (i > 0) out += d;
    if (column.level === 'row') out += formatCell(column.read(outcome), d);
  }
  return out;
}

/** One error row (`raw` as for okRowLine): the input echoed, status `error`, the code, field(s) and message, result columns empty. */
export function errorRowLine(
  cells: readonly string[],
  width: number,
  code: string,
  field: string,
  message: string,
  raw?: string,
  checkCells = '',
  d: CsvDelimiter = ',',
): string {
  return `${echoRow(cells, width, raw, d)}${errorResultCells({ status: 'error', code, field, message }, d)}${checkCells}\n`;
}

const OK: RowOutcome = { status: 'ok' };

/**
 * The cells an ok row of the student shares with its other rows, by column index of OUTPUT_COLUMNS: the row-level
 * columns (status `ok`) and the student-level columns read from `result`; term-level entries are ''.
 */
export function studentResultCells(result: CalculationResult, d: CsvDelimiter = ','): readonly string[] {
  return OUTPUT_COLUMNS.map((column) =>
    column.level === 'row'
      ? formatCell(column.read(OK), d)
      : column.level === 'student'
        ? formatCell(column.read(result), d)
        : '',
  );
}

/**
 * One ok row (`raw`: the line `cells` were split from, if any): the input echoed, then the result columns — the
 * student's shared cells (studentResultCells, same delimiter) and the term's own — then `checkCells`
 * (checkCellsText) when the file has sis_* columns.
 */
export function okRowLine(
  cells: readonly string[],
  width: number,
  studentCells: readonly string[],
  term: TermResult,
  raw?: string,
  checkCells = '',
  d: CsvDelimiter = ',',
): string {
  let out = echoRow(cells, width, raw, d);
  for (let i = 0; i < OUTPUT_COLUMNS.length; i++) {
    const column = OUTPUT_COLUMNS[i]!;
    if (i > 0) out += d;
    out += column.level === 'term' ? formatCell(column.read(term), d) : studentCells[i]!;
  }
  return `${out}${checkCells}\n`;
}
