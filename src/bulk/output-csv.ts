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
 *
 * Rows are written cell by cell into a chunk's byte buffer (writeOkStudent, writeErrorRow; byte-sink.ts), never
 * built as strings; okRowLine and errorRowLine give one row as a string, written by the same functions.
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
  type ResultOutputColumn,
  type RowOutcome,
} from './output-columns.ts';
import { hasSisColumns, type ShadowCheck } from './shadow-check.ts';
import { ByteSink } from './byte-sink.ts';

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

/** The delimiter's character code. */
const CODE: Readonly<Record<CsvDelimiter, number>> = { ',': 44, ';': 59, '\t': 9 };

/**
 * A text cell written into `sink`, as textCell(value, d) writes it. A short cell of plain ASCII that needs neither
 * protection nor quotes (nearly every echoed cell) is copied in one pass that also looks for what would need them.
 */
function writeText(sink: ByteSink, value: string, d: CsvDelimiter): void {
  const n = value.length;
  if (n === 0) return;
  const first = value.charCodeAt(0);
  // = + - @ TAB CR: maybe a formula (isFormulaLike)
  if (first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13) {
    sink.text(textCell(value, d));
    return;
  }
  if (n <= 32) {
    sink.reserve(n);
    const buf = sink.buf;
    const dc = CODE[d];
    let p = sink.used;
    let i = 0;
    for (; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c >= 0x80 || c === 34 || c === dc || c === 13 || c === 10) break;
      buf[p++] = c;
    }
    if (i === n) {
      sink.used = p;
      return;
    }
  }
  if (NEEDS_QUOTES[d].test(value)) {
    sink.byte(34);
    sink.text(value.replaceAll('"', '""'));
    sink.byte(34);
  } else {
    sink.text(value);
  }
}

/** A result cell written into `sink`, as formatCell(value, d) writes it. */
function writeValue(sink: ByteSink, value: CellValue, d: CsvDelimiter): void {
  if (typeof value === 'number') sink.number(value);
  else if (typeof value === 'string') writeText(sink, value, d);
  else if (value !== null) sink.text(value ? 'true' : 'false');
}

/**
 * A line whose cells (its split on commas) contain no character that needs quoting (quote, CR, LF) and none that
 * starts with a formula character (= + - @ TAB; CR is covered by the first test) echoes as itself:
 * `textCell(cell)` is `cell` for every cell, and the cells joined by commas are the line. Raw lines never hold a
 * quote or LF; the test does not rely on it.
 */
const RAW_NEEDS_CARE = /[\r\n"]|(?:^|,)[=+\-@\t]/;

/**
 * The echoed input cells of a row, padded or cut to the header's width, each followed by the delimiter: `raw`
 * (the line `cells` were split from, when the row came as a raw line: a comma file) followed by a comma when that
 * is the same text as the cells written one by one, else the cells one by one.
 */
function writeEcho(
  sink: ByteSink,
  cells: readonly string[],
  width: number,
  raw: string | undefined,
  d: CsvDelimiter,
): void {
  if (raw !== undefined && d === ',' && cells.length === width && !RAW_NEEDS_CARE.test(raw)) {
    sink.text(raw);
    sink.byte(44);
    return;
  }
  const dc = CODE[d];
  for (let i = 0; i < width; i++) {
    const cell = cells[i];
    if (cell !== undefined) writeText(sink, cell, d);
    sink.byte(dc);
  }
}

const OK: RowOutcome = { status: 'ok' };

/** Writes a run of an ok row's result cells, the delimiter between them (not before the first, not after the last). */
type RunWriter = (sink: ByteSink, result: CalculationResult, term: TermResult, d: CsvDelimiter, dc: number) => void;

/**
 * The writer of a run of columns, compiled once at module load from the column table into straight-line code that
 * reads each column at its own call site (as a hand-written writer would: each reader is then seen alone and
 * inlined, instead of one call site taking every column's reader in turn). The source is made from the columns'
 * positions only, never from data.
 */
function compileRun(columns: readonly ResultOutputColumn[]): RunWriter {
  const lines = columns.map((column, i) => {
    const subject = column.level === 'term' ? 'term' : column.level === 'student' ? 'result' : 'OK';
    return `${i > 0 ? 'sink.byte(dc); ' : ''}writeValue(sink, read${i}(${subject}), d);`;
  });
  const reads = columns.map((_, i) => `read${i}`);
  const source = `return function writeRun(sink, result, term, d, dc) {\n${lines.join('\n')}\n};`;
  const make = new Function('writeValue', 'OK', ...reads, source) as (...args: unknown[]) => RunWriter;
  return make(writeValue, OK, ...columns.map((c) => c.read));
}

/** The result columns of every row, as runs: the row and student columns (one run, or more) and the term columns. */
interface ColumnRun {
  /** Row and student columns: the same on every ok row of a student, written once and copied. */
  shared: boolean;
  write: RunWriter;
}
const RUNS: readonly ColumnRun[] = OUTPUT_COLUMNS.reduce<{ shared: boolean; columns: ResultOutputColumn[] }[]>(
  (runs, column) => {
    const shared = column.level !== 'term';
    const last = runs.at(-1);
    if (last !== undefined && last.shared === shared) last.columns.push(column);
    else runs.push({ shared, columns: [column] });
    return runs;
  },
  [],
).map(({ shared, columns }) => ({ shared, write: compileRun(columns) }));

/** Byte ranges of the shared runs of the student being written (reused: rows are written one student at a time). */
const sharedRanges: number[] = [];

/**
 * Every row of an ok student, written into `sink`: each row's input echoed (`raws[r]`: the line row r was split
 * from, if any), then the result columns — the row and student cells, written on its first row and copied as bytes
 * on the others, and the term's own — then `checkCells` (checkCellsText) when the file has sis_* columns. The same
 * bytes as okRowLine for each row with studentResultCells(result, d).
 */
export function writeOkStudent(
  sink: ByteSink,
  rows: readonly (readonly string[])[],
  raws: readonly (string | undefined)[] | undefined,
  width: number,
  result: CalculationResult,
  checkCells: string,
  d: CsvDelimiter = ',',
): void {
  const dc = CODE[d];
  sharedRanges.length = 0;
  for (let r = 0; r < rows.length; r++) {
    writeEcho(sink, rows[r]!, width, raws?.[r], d);
    const term = result.terms[r]!;
    let shared = 0;
    for (let k = 0; k < RUNS.length; k++) {
      const run = RUNS[k]!;
      if (k > 0) sink.byte(dc);
      if (run.shared && r > 0) {
        sink.repeat(sharedRanges[shared]!, sharedRanges[shared + 1]!);
        shared += 2;
        continue;
      }
      const start = sink.used;
      run.write(sink, result, term, d, dc);
      if (run.shared) sharedRanges.push(start, sink.used);
    }
    sink.text(checkCells);
    sink.byte(10);
  }
}

/**
 * One error row written into `sink` (`raw` as for writeOkStudent): the input echoed, status `error`, the code,
 * field(s) and message, the result columns empty, then `checkCells`. The same bytes as errorRowLine.
 */
export function writeErrorRow(
  sink: ByteSink,
  cells: readonly string[],
  width: number,
  code: string,
  field: string,
  message: string,
  raw: string | undefined,
  checkCells: string,
  d: CsvDelimiter = ',',
): void {
  writeEcho(sink, cells, width, raw, d);
  const outcome: RowOutcome = { status: 'error', code, field, message };
  const dc = CODE[d];
  for (let i = 0; i < OUTPUT_COLUMNS.length; i++) {
    const column = OUTPUT_COLUMNS[i]!;
    if (i > 0) sink.byte(dc);
    if (column.level === 'row') writeValue(sink, column.read(outcome), d);
  }
  sink.text(checkCells);
  sink.byte(10);
}

/** A line written into a sink of its own, as a string (the row functions below: one row at a time). */
function line(write: (sink: ByteSink) => void): string {
  const sink = new ByteSink(1024);
  write(sink);
  return sink.toString();
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
  return line((sink) => writeErrorRow(sink, cells, width, code, field, message, raw, checkCells, d));
}

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
  return line((sink) => {
    writeEcho(sink, cells, width, raw, d);
    for (let i = 0; i < OUTPUT_COLUMNS.length; i++) {
      const column = OUTPUT_COLUMNS[i]!;
      if (i > 0) sink.byte(CODE[d]);
      if (column.level === 'term') writeValue(sink, column.read(term), d);
      else sink.text(studentCells[i]!);
    }
    sink.text(checkCells);
    sink.byte(10);
  });
}
