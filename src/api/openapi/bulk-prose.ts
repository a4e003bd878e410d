/**
 * The OpenAPI prose of POST /v1/calculate/bulk: the input-column table (the bulk pipeline's own column list, each
 * request column described from the request-field table), the output columns (from the output-column table) and the limits.
 */
import {
  INPUT_COLUMNS,
  REQUIRED_COLUMNS,
  SIS_TERM_COLUMNS,
  STUDENT_COLUMN_FIELDS,
  TERM_COLUMN_FIELDS,
  TERM_COLUMNS,
} from '../../bulk/csv-layout.ts';
import type { RequestField } from '../../schema/fields.ts';
import { cellSpellingNote } from '../../bulk/cell-spellings.ts';
import { CHECK_POLICY_TEXT, checkReasonsProse } from '../../domain/check-reasons.ts';
import { describeColumn, OUTPUT_COLUMNS } from '../../bulk/output-columns.ts';
import { fmt, type DocumentLimits } from './prose.ts';

/** The columns outside the request: the student's id and the shadow check's figures. */
const OTHER_COLUMN_MAPPING: Readonly<Record<string, string>> = {
  student_id: 'BulkResult.student_id (string, kept verbatim)',
  sis_reduced_annual_pct:
    'shadow check: the school system’s reduced_annual_pct (0–100; compared at its own precision; empty = not compared)',
  sis_option: 'shadow check: which option the school’s term amounts follow, equal (default) or proportional',
  sis_sub: 'shadow check: the school system’s subsidized amount for the term (empty = not compared)',
  sis_unsub: 'shadow check: the school system’s unsubsidized amount for the term (empty = not compared)',
  sis_grad_plus: 'shadow check: the school system’s Grad PLUS amount for the term (empty = not compared)',
};

/** What an empty cell of a request field's column means, and how its values are written. */
function cellNote(field: RequestField): string {
  if (field.level === 'term') return field.nullable ? 'empty cell = null' : '';
  const empty =
    field.emptyCell ??
    (field.presence === 'required'
      ? ''
      : field.nullable
        ? 'empty = null'
        : typeof field.default === 'boolean'
          ? `empty = ${String(field.default)}`
          : 'empty = default');
  const written =
    field.type.kind === 'integer'
      ? `a whole number from ${field.type.min} to ${field.type.max}`
      : cellSpellingNote(field); // booleans' and enums' spellings (SIS exports), from the CSV layout
  return [written, empty].filter((part) => part !== '').join('; ');
}

/** What each bulk input column maps to: a request field's path (from the field table) or the notes above. */
function columnMapping(column: string): string {
  const field = [...TERM_COLUMN_FIELDS, ...STUDENT_COLUMN_FIELDS].find((f) => f.column === column);
  if (field === undefined) return OTHER_COLUMN_MAPPING[column] ?? '';
  const note = cellNote(field);
  const path = `${field.level === 'term' ? 'Term' : 'CalculationRequest'}.${field.name}`;
  return note === '' ? path : `${path} (${note})`;
}

const TERM_LEVEL: ReadonlySet<string> = new Set([...TERM_COLUMNS, ...SIS_TERM_COLUMNS]);

/** The result columns appended to every output row, with notes (from the output-column table). */
export const BULK_OUTPUT_COLUMNS: readonly string[] = OUTPUT_COLUMNS.map(describeColumn);

export function bulkDescription(limits: DocumentLimits): string {
  return [
    'Calculates many students in one call, with exactly the rules of POST /v1/calculate applied to each student. ' +
      'The file is streamed: memory stays flat as files grow. The output has exactly one row per input row, in ' +
      'input order; a student whose data is invalid (or whose chunk could not be computed) becomes error rows, ' +
      'never missing rows.',
    '',
    '### Input (Content-Type: text/csv, or multipart/form-data with the CSV in the field `file`)',
    'UTF-8 (a BOM is accepted), a header row, comma-separated, LF or CRLF line ends. **One row per student per ' +
      'term**; a student’s rows are contiguous and in term order. Header names are matched case-insensitively and ' +
      'column order is free. An unknown column or a missing required column rejects the whole file (400) naming ' +
      'the column. Student-level values may repeat on every row of the student or appear on its first row only; a ' +
      'value that contradicts the first row makes that student an error. A student_id that reappears after other ' +
      'students is an error for that student (`rows are not contiguous`), never a silent merge; a file sorted by ' +
      'term (more than half of its students with rows in separate places) is refused whole with a 400 that says to ' +
      'sort it by student, before any row is computed. Booleans and enum values may be written as SIS exports ' +
      'write them (the column table says how); the CSV answer uses the file’s delimiter unless ?output_delimiter= ' +
      'asks for another.',
    '',
    '| Column | Required | Level | Maps to |',
    '|---|---|---|---|',
    ...INPUT_COLUMNS.map(
      (c) =>
        `| ${c} | ${REQUIRED_COLUMNS.includes(c) ? 'yes' : 'no'} | ${TERM_LEVEL.has(c) ? 'term' : 'student'} | ` +
        `${columnMapping(c)} |`,
    ),
    '',
    `Limits: at most ${fmt(limits.bulkMaxBytes)} bytes and ${fmt(limits.bulkMaxRows)} data rows per file (413 ` +
      'validation_error beyond).',
    '',
    '### Output',
    '- `Accept: text/csv` (the default, also for a missing Accept or `*/*`): the same rows in the same order, every ' +
      'input column echoed, followed by these columns: ' +
      BULK_OUTPUT_COLUMNS.map((c) => `\`${c}\``).join(', ') +
      '. Student-level results repeat on each row of the student; error columns name the CSV column at fault. Text ' +
      'cells are protected against spreadsheet formula injection; numbers are never altered.',
    '- `Accept: application/x-ndjson`: one BulkResult JSON object per student and line, `{student_id, error, ' +
      'result}` with exactly one of error (the v1 error envelope; field errors name CSV columns) or result (a ' +
      'CalculationResult) non-null.',
    '- Any other Accept: 406 (code unsupported_media_type).',
    '',
    '### Shadow check (optional sis_* columns)',
    'A school adds its own system’s figures (`sis_reduced_annual_pct`, `sis_option`; per term `sis_sub`, ' +
      '`sis_unsub`, `sis_grad_plus`). When the header has any sis_* column, each calculated student is compared ' +
      'as a whole and three columns follow the results: `check_status` (match | mismatch | not_checked: every ' +
      'sis figure cell empty), `check_detail` (each differing field, the school’s figure first: ' +
      '`Fall: sub 1102 ≠ 1103`) and `check_reason`, the first reason in this order whose reading reproduces the ' +
      'school’s figures exactly (the school’s figures equal ours computed with…): ' +
      checkReasonsProse() +
      '. ' +
      CHECK_POLICY_TEXT +
      ' NDJSON BulkResults then carry `check: {status, ' +
      'detail, reason}` (null for a student with errors). An invalid sis value is an error row naming the column; ' +
      'students with errors are not checked. Without sis_* columns the output is unchanged.',
    '',
    'The HTTP status is decided once the header and the first rows are validated; after the 200 is sent, problems ' +
      'become error rows. A response that fails after that point is cut short (the transfer is incomplete), never ' +
      'silently truncated at a row boundary.',
  ].join('\n');
}
