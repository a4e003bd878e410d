/**
 * Bulk CSV layout v1 (architecture.md "Bulk CSV layout (v1)"): the columns, the header check, and the mapping
 * between a student's rows and a CalculationRequest. Validation itself is the JSON endpoint's
 * (`parseCalculationRequest`, one source of truth); this module only turns cells into the request body and turns
 * the schema's field paths (`terms[1].credits_enrolled`) back into CSV rows and column names.
 *
 * Cell conventions:
 *  - Cells are used verbatim (no trimming): `" 5"` is rejected exactly as the JSON string `" 5"` would be.
 *  - Booleans and enum values may be spelled as SIS exports write them (src/bulk/cell-spellings.ts: `Y`, `No`,
 *    `Dependent`, COD grade level codes); the JSON API stays strict.
 *  - Empty cell: optional term columns → null; optional student columns → the request default (omitted);
 *    required columns → "is required".
 *  - Booleans (is_legacy_borrower, plus_denied, final_period_of_program): true/false, yes/no, y/n, 1/0, any
 *    letter case.
 *  - subsidized_amount: no column or an empty cell leaves it out of the request (0, with the rules.md §7 warning
 *    that no subsidized eligibility was assumed); "0" is an explicit 0.
 *  - award_year: the award year's id as text ("2026-27"); empty = the request default (the one in force today).
 *  - academic_year_terms, academic_year_months: a decimal number ("3", "3.0"); the schema then requires a whole
 *    number (2 to 4 terms; 9 to 12 months).
 *  - health_professions_program: the program's name as the JSON field takes it ("dentistry"); empty = none.
 *  - The school policy is not a column: one policy per file (rules.md §10), given by the caller
 *    (`policy.<option>` query parameters, `sor bulk --policy`) and passed to `validateStudentRows`.
 *  - Credit and money columns are passed as decimal strings, so "10.5" is exact.
 *  - Student-level columns may repeat on every row of the student (the same text, or another spelling of the same
 *    boolean or enum value) or be given on its first row only; any other value on a later row is an error for the
 *    student.
 */
import { appError, type FieldError } from '../errors.ts';
import { parseCalculationRequest } from '../schema/request.ts';
import type { CalculationInput } from '../domain/types.ts';
import type { SchoolPolicy } from '../domain/policy.ts';
import { STUDENT_FIELDS as REQUEST_STUDENT_FIELDS, TERM_FIELDS } from '../schema/fields.ts';
import type { ExtraColumns } from './csv-dialect.ts';
import { delimiterHint, nearestColumn } from './header-hints.ts';
import {
  BOOLEAN_SPELLINGS,
  enumCell,
  enumMessage,
  parseBoolean,
  readEnumCell,
  type EnumCell,
} from './cell-spellings.ts';

/** A request field with a CSV column (terms are rows and the policy is the file's: they have none). */
type ColumnField<F extends { column: string }> = F extends { column: '' } ? never : F;
type TermColumnField = ColumnField<(typeof TERM_FIELDS)[number]>;
type StudentColumnField = ColumnField<(typeof REQUEST_STUDENT_FIELDS)[number]>;

/** The term-level columns, one per Term field of the request-field table (each has one), in its order. */
export const TERM_COLUMN_FIELDS: readonly TermColumnField[] = TERM_FIELDS;
/** The student-level columns, one per CalculationRequest field with a column, in the table's order. */
export const STUDENT_COLUMN_FIELDS: readonly StudentColumnField[] = REQUEST_STUDENT_FIELDS.filter(
  (f): f is StudentColumnField => f.column !== '',
);
export const TERM_COLUMNS: readonly TermColumnField['column'][] = TERM_COLUMN_FIELDS.map((f) => f.column);
export const STUDENT_COLUMNS: readonly StudentColumnField['column'][] = STUDENT_COLUMN_FIELDS.map((f) => f.column);

/** The shadow check's columns (src/bulk/shadow-check.ts): a school system's own figures, never part of the request. */
export const SIS_STUDENT_COLUMNS = ['sis_reduced_annual_pct', 'sis_option'] as const;
export const SIS_TERM_COLUMNS = ['sis_sub', 'sis_unsub', 'sis_grad_plus'] as const;

/** Every column a v1 input file may have, in the documented order. */
export type InputColumn =
  | 'student_id'
  | TermColumnField['column']
  | StudentColumnField['column']
  | (typeof SIS_STUDENT_COLUMNS)[number]
  | (typeof SIS_TERM_COLUMNS)[number];
export const INPUT_COLUMNS: readonly InputColumn[] = [
  'student_id',
  ...TERM_COLUMNS,
  ...STUDENT_COLUMNS,
  ...SIS_STUDENT_COLUMNS,
  ...SIS_TERM_COLUMNS,
];

/** student_id and the columns of the table's required fields. */
export const REQUIRED_COLUMNS: readonly InputColumn[] = [
  'student_id',
  ...[...TERM_COLUMN_FIELDS, ...STUDENT_COLUMN_FIELDS].filter((f) => f.presence === 'required').map((f) => f.column),
];

// The output's result columns (after the echoed input columns) are in output-columns.ts.

/**
 * The file's header, resolved: where each known column is (-1 when absent). Unnamed columns (Excel's trailing
 * empty columns) are not part of it: `header`, `columns`, `width` and `col` count the other columns only, and
 * `ignored` lists the unnamed ones by their place in the file (src/bulk/record-shape.ts drops their cells).
 */
export interface CsvLayout {
  /** Header cells as written in the file (unnamed columns left out). */
  readonly header: readonly string[];
  /** The layout's name of each known column, at its place (a column kept with extra_columns=keep leaves a hole). */
  readonly columns: readonly InputColumn[];
  readonly width: number;
  readonly col: Readonly<Record<InputColumn, number>>;
  /** The output header's name of each column: the layout's name, or an extra column's name as written. */
  readonly outputNames?: readonly string[];
  /** Cells in the file's header row, unnamed columns included (the width a multi-line record must have). */
  readonly fileWidth?: number;
  /** Unnamed columns, by their 0-based place in the file; a row must leave them empty. */
  readonly ignored?: readonly number[];
}

export interface HeaderOptions {
  /** Columns outside the layout: rejected (default) or kept and echoed. */
  extraColumns?: ExtraColumns;
  /** The delimiter the header was split on (for the hint when it seems to be another). */
  delimiter?: string;
}

const KNOWN: ReadonlySet<string> = new Set(INPUT_COLUMNS);

function quoteName(name: string): string {
  return JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
}

/**
 * Resolves a header row. Names match case-insensitively, surrounding spaces ignored, in any order. An unknown,
 * duplicate, unnamed or missing required column rejects the file: AppError 400 `validation_error` naming every
 * offending column (field_errors).
 */
export function readHeader(cells: readonly string[], options: HeaderOptions = {}): CsvLayout {
  const errors: FieldError[] = [];
  let unknownColumn = false;
  const col = Object.fromEntries(INPUT_COLUMNS.map((c) => [c, -1])) as Record<InputColumn, number>;
  const keep = options.extraColumns === 'keep';
  const ignored: number[] = [];
  const kept: string[] = [];
  const outputNames: string[] = [];
  const wrongDelimiter = delimiterHint(cells, options.delimiter ?? ',');
  cells.forEach((raw, i) => {
    const name = raw.trim().toLowerCase();
    if (name === '') {
      ignored.push(i); // an unnamed column: ignored while its cells are empty (record-shape.ts)
      return;
    }
    const at = kept.length;
    kept.push(raw);
    if (!KNOWN.has(name)) {
      outputNames.push(raw.trim());
      if (keep) return;
      const near = nearestColumn(name, INPUT_COLUMNS);
      errors.push({
        field: raw,
        message: 'is not a column of the bulk CSV layout v1' + (near === undefined ? '' : ` (did you mean "${near}"?)`),
      });
      unknownColumn = true;
    } else if (col[name as InputColumn] !== -1) {
      outputNames.push(name);
      errors.push({ field: name, message: 'appears more than once in the header row' });
    } else {
      outputNames.push(name);
      col[name as InputColumn] = at;
    }
  });
  for (const required of REQUIRED_COLUMNS) {
    if (col[required] === -1) errors.push({ field: required, message: 'is a required column and is missing' });
  }
  if (errors.length > 0) {
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more header problem(s))` : '';
    const allowed =
      wrongDelimiter !== ''
        ? wrongDelimiter
        : unknownColumn
          ? ` The columns are: ${INPUT_COLUMNS.join(', ')}. To keep other columns in the output as they are, ` +
            'add ?extra_columns=keep (command line: --keep-extra-columns).'
          : '';
    throw appError(
      'CSV_HEADER_INVALID',
      { column: quoteName(first.field), problem: first.message, more, allowed },
      { fieldErrors: errors },
    );
  }
  const columns: InputColumn[] = [];
  for (const name of INPUT_COLUMNS) if (col[name] >= 0) columns[col[name]] = name;
  if (ignored.length === 0 && !keep) return { header: [...cells], columns, width: cells.length, col };
  return { header: kept, columns, width: kept.length, col, outputNames, fileWidth: cells.length, ignored };
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** A problem on one row of a student: `field` is the CSV column ('' for the row as a whole). */
export interface RowFieldError {
  /** Index of the row within the student (0 = its first row). */
  row: number;
  field: string;
  message: string;
}

export type StudentValidation = { ok: true; input: CalculationInput } | { ok: false; errors: RowFieldError[] };

function shorten(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function cellOf(cells: readonly string[], index: number): string {
  return index < 0 ? '' : (cells[index] ?? '');
}

/**
 * A student-level cell: the first row's value. A later row may repeat it or leave it empty; any other value is an
 * error on that row naming the column.
 */
export function studentCell(
  rows: readonly (readonly string[])[],
  lines: readonly number[],
  index: number,
  column: string,
  errors: RowFieldError[],
  same?: (a: string, b: string) => boolean,
): string {
  const value = cellOf(rows[0]!, index);
  for (let r = 1; r < rows.length; r++) {
    const other = cellOf(rows[r]!, index);
    if (other === '' || other === value || (same !== undefined && value !== '' && same(value, other))) continue;
    errors.push({
      row: r,
      field: column,
      message:
        value === ''
          ? `is ${shorten(other)} but the student's first row (line ${lines[0]}) leaves it empty; a student-level ` +
            'value must be given on the first row of the student'
          : `is ${shorten(other)} but the student's first row (line ${lines[0]}) has ${shorten(value)}; a ` +
            'student-level value must be the same on every row of the student or given on its first row only',
    });
  }
  return value;
}

/**
 * Builds the request body for one student from its rows (cells in header order; every row already has the
 * header's width), validates it with the JSON endpoint's schema, and reports problems per row and CSV column.
 * `policy`: the file's school policy (rules.md §10), every student's; DEFAULT_POLICY when absent.
 */
export function validateStudentRows(
  rows: readonly (readonly string[])[],
  lines: readonly number[],
  layout: CsvLayout,
  policy?: SchoolPolicy,
): StudentValidation {
  const errors: RowFieldError[] = [];
  const body: Record<string, unknown> = {};
  const idIndex = layout.col.student_id;
  for (let r = 0; r < rows.length; r++) {
    if (cellOf(rows[r]!, idIndex) === '') errors.push({ row: r, field: 'student_id', message: 'is required' });
  }

  for (const field of STUDENT_CELLS) {
    const index = layout.col[field.column];
    if (index < 0) continue;
    const value = studentCell(rows, lines, index, field.column, errors, field.same);
    if (value === '') continue; // default
    setStudentValue(body, field, value, errors);
  }

  const terms: Record<string, unknown>[] = [];
  for (const cells of rows) {
    const term: Record<string, unknown> = {};
    for (const field of TERM_CELLS) {
      const value = cellOf(cells, layout.col[field.column]);
      if (value === '') {
        if (field.nullable) term[field.name] = null;
        // required columns left out: the schema says "is required"
      } else {
        term[field.name] = value;
      }
    }
    terms.push(term);
  }
  body.terms = terms;

  const parsed = parseCalculationRequest(body, policy === undefined ? undefined : { policy });
  if (parsed.ok && errors.length === 0) return { ok: true, input: parsed.value };
  if (!parsed.ok) {
    // A student cell refused above (row 0: a later row's errors are contradictions) is left out of the body: the
    // schema's "is required" for it would say it twice.
    const refused = new Set(errors.filter((e) => e.row === 0).map((e) => e.field));
    for (const fe of parsed.fieldErrors) if (!refused.has(fe.field)) errors.push(toRowError(fe, rows.length));
  }
  return { ok: false, errors };
}

/** How a student-level cell is read (one shape for every column: the loop over them stays monomorphic). */
interface StudentCell {
  column: StudentColumnField['column'];
  name: string;
  /** 'boolean', 'integer' and 'enum' cells are read here; every other value goes to the schema as text. */
  kind: 'boolean' | 'integer' | 'enum' | 'text';
  /** An integer cell's message when it is not a number. */
  notNumber: string;
  /** An enum cell's spellings (cell-spellings.ts); undefined for other kinds. */
  enum: EnumCell | undefined;
  /** Two spellings of one value (booleans and enums: `Y` and `yes`); undefined where only the same text is. */
  same: ((a: string, b: string) => boolean) | undefined;
}
const sameBoolean = (a: string, b: string) => {
  const x = parseBoolean(a);
  return x !== undefined && x === parseBoolean(b);
};
const STUDENT_CELLS: readonly StudentCell[] = STUDENT_COLUMN_FIELDS.map(({ column, name, type }) => {
  const spelled = type.kind === 'enum' ? enumCell(column, type.values) : undefined;
  return {
    column,
    name,
    kind: type.kind === 'boolean' || type.kind === 'integer' || type.kind === 'enum' ? type.kind : 'text',
    notNumber: type.kind === 'integer' ? `must be a whole number from ${type.min} to ${type.max}, or empty` : '',
    enum: spelled,
    same:
      type.kind === 'boolean'
        ? sameBoolean
        : spelled === undefined
          ? undefined
          : (a: string, b: string) => {
              const x = readEnumCell(spelled, a);
              return x !== undefined && x === readEnumCell(spelled, b);
            },
  };
});
/** How a term cell is read: an empty cell of a nullable field is null, of a required one left out. */
const TERM_CELLS: readonly { column: TermColumnField['column']; name: string; nullable: boolean }[] =
  TERM_COLUMN_FIELDS.map(({ column, name, nullable }) => ({ column, name, nullable }));

/** A student-level cell into the request body: booleans, enum spellings and whole numbers read, the rest as text. */
function setStudentValue(body: Record<string, unknown>, cell: StudentCell, value: string, errors: RowFieldError[]) {
  if (cell.kind === 'boolean') {
    const b = parseBoolean(value);
    if (b === undefined) {
      errors.push({
        row: 0,
        field: cell.column,
        message: `must be true or false (also accepted: ${BOOLEAN_SPELLINGS})`,
      });
    } else {
      body[cell.name] = b;
    }
  } else if (cell.kind === 'enum') {
    // A spelling of one of the table's values (any letter case, COD codes); the schema still checks the value.
    const v = readEnumCell(cell.enum!, value);
    if (v === undefined)
      errors.push({ row: 0, field: cell.column, message: enumMessage(cell.column, cell.enum!, value) });
    else body[cell.name] = v;
  } else if (cell.kind === 'integer') {
    // Read as a number; the schema checks the range and says it again.
    if (DECIMAL.test(value)) body[cell.name] = Number(value);
    else errors.push({ row: 0, field: cell.column, message: cell.notNumber });
  } else {
    body[cell.name] = value;
  }
}

const TERM_PATH = /^terms\[(\d+)\](?:\.(\w+))?$/;
const TERM_COLUMN_BY_NAME: ReadonlyMap<string, string> = new Map(TERM_COLUMN_FIELDS.map((f) => [f.name, f.column]));

/** Maps a schema field path back to a row of the student and a CSV column. */
function toRowError(fe: FieldError, rowCount: number): RowFieldError {
  const m = TERM_PATH.exec(fe.field);
  if (m) {
    const row = Math.min(Number(m[1]), rowCount - 1);
    const key = m[2];
    const field = key === undefined ? '' : (TERM_COLUMN_BY_NAME.get(key) ?? key);
    return { row, field, message: fe.message };
  }
  if (fe.field === 'terms') {
    return { row: 0, field: 'student_id', message: `${fe.message} (one row per term; this student has ${rowCount})` };
  }
  return { row: 0, field: fe.field, message: fe.message };
}
