/**
 * Runs one chunk: the pure function behind every runner (inline, the piscina worker, the queue worker).
 * Payload in (chunk-payload.ts), ready-to-write output lines out. For each student: structural errors found
 * while reading and grouping, then the JSON endpoint's validation (csv-layout.ts), then `calculate()`.
 *
 * Never throws for bad student data: every problem becomes error rows. A student is all-or-nothing: when any of
 * its rows has a problem, every row of the student is an error row (rows without a problem of their own say
 * which lines of the student have errors), because a student computed without one of its terms would get wrong
 * dollars.
 *
 * Every chunk also counts what its results add up to (result-stats.ts). A chunk of an async job (payload `o`,
 * chunk-payload.ts) renders every output the job offers from the one calculation of each student: the CSV result,
 * the NDJSON result and the errors-only CSV (the error rows of the CSV), as three sections of one UTF-8 buffer
 * (ChunkOutcome.parts), so the job's one run serves all its downloads.
 */
import { calculate } from '../domain/calculate.ts';
import type { FieldError } from '../errors.ts';
import type { CalculationResult } from '../domain/types.ts';
import type { SchoolPolicy } from '../domain/policy.ts';
import type { ChunkOutcome } from './runner.ts';
import { malformedPayload, type PayloadStudent } from './chunk-payload.ts';
import { openPayload, type PayloadReader } from './payload-reader.ts';
import { readHeader, validateStudentRows, type CsvLayout, type RowFieldError } from './csv-layout.ts';
import { checkCellsText, writeErrorRow, writeOkStudent } from './output-csv.ts';
import { ByteSink } from './byte-sink.ts';
import { hasSisColumns, readSisFigures, shadowCheck, type ShadowCheck } from './shadow-check.ts';
import { countCheck, emptyCheckSummary } from './shadow-summary.ts';
import { StatsCounter } from './result-stats.ts';
import { errorNdjsonLine, okNdjsonLine, studentErrorEnvelope, studentInternalEnvelope } from './output-ndjson.ts';

type ErrorCode = 'validation_error' | 'internal_error';

type Verdict =
  | { ok: true; result: CalculationResult; check?: ShadowCheck }
  | { ok: false; code: ErrorCode; errors: RowFieldError[] };

const INTERNAL_ROW_MESSAGE = 'An internal error occurred while calculating this student; resubmit it.';

let cachedHeader = '';
let cachedLayout: CsvLayout | undefined;

/**
 * The header was checked by the pipeline already; re-resolving it is cheap and cached per header. A header that
 * fails the check makes the payload malformed (no pipeline sends one): a SyntaxError, before any student is read.
 */
function layoutFor(header: string[]): CsvLayout {
  const key = header.join('\u0000');
  if (cachedLayout === undefined || key !== cachedHeader) {
    // The pipeline checked the header, extra columns included (with extra_columns=keep they are echoed).
    try {
      cachedLayout = readHeader(header, { extraColumns: 'keep' });
    } catch {
      throw malformedPayload();
    }
    cachedHeader = key;
  }
  return cachedLayout;
}

/** `sis`: the file has sis_* columns, so the student's figures are read and checked (src/bulk/shadow-check.ts). */
/** `policy`: the file's school policy (the payload's `p`), every student's. */
function judge(student: PayloadStudent, layout: CsvLayout, sis: boolean, policy: SchoolPolicy | undefined): Verdict {
  const errors: RowFieldError[] = [];
  if (student.x !== undefined) {
    for (let r = 0; r < student.l.length; r++) errors.push({ row: r, field: student.x.f, message: student.x.m });
  }
  if (student.e !== undefined) {
    student.e.forEach((message, r) => {
      if (message !== null) errors.push({ row: r, field: '', message });
    });
  }
  student.c.forEach((cells, r) => {
    if (cells.length !== layout.width && student.e?.[r] == null) {
      errors.push({
        row: r,
        field: '',
        message: `the row has ${cells.length} cells but the header has ${layout.width}`,
      });
    }
  });
  if (errors.length > 0) return { ok: false, code: 'validation_error', errors };

  const validation = validateStudentRows(student.c, student.l, layout, policy);
  const school = sis ? readSisFigures(student.c, student.l, layout) : undefined;
  if (!validation.ok || (school !== undefined && school.errors.length > 0)) {
    const all = validation.ok ? [] : validation.errors;
    if (school !== undefined) all.push(...school.errors);
    return { ok: false, code: 'validation_error', errors: all };
  }
  try {
    const result = calculate(validation.input);
    if (school === undefined) return { ok: true, result };
    return { ok: true, result, check: shadowCheck(validation.input, result, school.figures) };
  } catch {
    // A defect, not a data problem: the student becomes error rows instead of failing the chunk.
    return { ok: false, code: 'internal_error', errors: [{ row: 0, field: '', message: INTERNAL_ROW_MESSAGE }] };
  }
}

function uniqueJoined(values: readonly string[]): string {
  return [...new Set(values.filter((v) => v !== ''))].join(' | ');
}

/** Each row's own problems (a problem about the student as a whole is its first row's). */
function errorsByRow(student: PayloadStudent, errors: readonly RowFieldError[]): RowFieldError[][] {
  const byRow: RowFieldError[][] = student.l.map(() => []);
  for (const e of errors) byRow[Math.min(Math.max(e.row, 0), byRow.length - 1)]!.push(e);
  return byRow;
}

/** The error columns of each row of an error student. */
function rowErrorColumns(
  student: PayloadStudent,
  byRow: readonly (readonly RowFieldError[])[],
): { field: string; message: string }[] {
  const errorLines = student.l.filter((_, r) => byRow[r]!.length > 0);
  return byRow.map((own) => {
    if (own.length === 0) {
      return {
        field: '',
        message: `not calculated: this student has errors on line${errorLines.length > 1 ? 's' : ''} ${errorLines.join(', ')}`,
      };
    }
    return {
      field: uniqueJoined(own.map((e) => e.field)),
      message: own.map((e) => (e.field === '' ? e.message : `${e.field}: ${e.message}`)).join(' | '),
    };
  });
}

function studentIdOf(student: PayloadStudent, layout: CsvLayout): string {
  return student.c[0]![layout.col.student_id] ?? '';
}

/** The v1 error envelope of an error student (NDJSON): field errors name CSV columns, messages name lines. */
function studentEnvelope(student: PayloadStudent, code: ErrorCode, errors: readonly RowFieldError[]) {
  if (code === 'internal_error') return studentInternalEnvelope();
  const fieldErrors: FieldError[] = errors.map((e) => ({
    field: e.field === '' ? 'row' : e.field,
    message: `line ${student.l[Math.min(Math.max(e.row, 0), student.l.length - 1)]}: ${e.message}`,
  }));
  return studentErrorEnvelope(fieldErrors);
}

/** Smallest output buffer allocated. */
const MIN_OUTPUT_BYTES = 256 * 1024;
/** Largest output buffer allocated up front from the size hint (a larger output grows the buffer). */
const MAX_OUTPUT_HINT_BYTES = 16 * 1024 * 1024;
/**
 * Output bytes expected per payload byte, with a margin: a CSV row echoes its input and adds ~1 kB of
 * results, so a chunk's output is 8.3-9.1 times its payload (the bench's random students: 1.70 MB of output from
 * 197,000 bytes of payload). Sized from the payload, a chunk's buffer holds its whole output: an estimate
 * below it (8 per byte) made every chunk grow its buffer once, to twice the size, with a copy.
 */
const OUTPUT_BYTES_PER_PAYLOAD_BYTE = 9.5;
/** A lent buffer this share of the estimate or more is taken (the next chunk's payload is rarely much larger). */
const REUSE_SHARE = 0.9;

/** A chunk's output buffer of about `sizeHint` bytes (bounded), or the lent one when it is large enough. */
function outputSink(sizeHint: number, initial?: ArrayBuffer): ByteSink {
  const size = Math.min(Math.max(MIN_OUTPUT_BYTES, sizeHint), MAX_OUTPUT_HINT_BYTES);
  return new ByteSink(size, initial, size * REUSE_SHARE);
}

/**
 * Output bytes of a job's chunk (CSV, NDJSON and the error rows) per byte of its CSV output alone: the NDJSON
 * result is about as large as the CSV one.
 */
const ALL_OUTPUTS_SIZE_FACTOR = 2.2;

function run(
  reader: PayloadReader,
  failure: string | undefined,
  bytes: boolean,
  initial?: ArrayBuffer,
  sizeHint = 0,
): ChunkOutcome {
  const payload = reader.head;
  const layout = layoutFor(payload.h);
  const width = layout.width;
  const d = payload.d ?? ','; // the CSV output's delimiter
  const sis = hasSisColumns(layout);
  const noCheck = sis ? checkCellsText(null, d) : '';
  const checks = sis ? emptyCheckSummary() : undefined;
  const counter = new StatsCounter();
  // A job's chunk renders all three outputs into one byte buffer: CSV, then NDJSON, then the CSV's error rows.
  const all = payload.o === 1;
  // Written as UTF-8 bytes (output-csv.ts writes rows cell by cell); decoded once at the end for a text outcome.
  const out = outputSink(all ? sizeHint * ALL_OUTPUTS_SIZE_FACTOR : sizeHint, initial);
  const ndjsonOut = all ? outputSink(sizeHint) : out;
  const errorsOut = all ? new ByteSink(0) : undefined;
  const writeCsv = all || payload.f === 'csv';
  const writeNdjson = all || payload.f === 'ndjson';
  let rows = 0;
  let errorRows = 0;
  for (let k = 0; k < reader.count; k++) {
    const student = reader.student(k);
    const n = student.l.length;
    rows += n;
    const verdict: Verdict =
      failure === undefined
        ? judge(student, layout, sis, payload.p)
        : { ok: false, code: 'internal_error', errors: [{ row: 0, field: '', message: failure }] };
    if (checks !== undefined && verdict.ok && verdict.check !== undefined) countCheck(checks, verdict.check);
    if (verdict.ok) {
      counter.ok(verdict.result);
      if (writeNdjson) ndjsonOut.text(okNdjsonLine(studentIdOf(student, layout), verdict.result, verdict.check));
      if (!writeCsv) continue;
      const checkCells = verdict.check === undefined ? '' : checkCellsText(verdict.check, d);
      writeOkStudent(out, student.c, student.r, width, verdict.result, checkCells, d);
      continue;
    }
    errorRows += n;
    const byRow = failure === undefined ? errorsByRow(student, verdict.errors) : student.l.map(() => verdict.errors);
    counter.error(student.l, byRow);
    if (writeNdjson) {
      const envelope = studentEnvelope(student, verdict.code, verdict.errors);
      ndjsonOut.text(errorNdjsonLine(studentIdOf(student, layout), envelope, sis));
    }
    if (!writeCsv) continue;
    const columns =
      failure === undefined ? rowErrorColumns(student, byRow) : student.l.map(() => ({ field: '', message: failure }));
    for (let r = 0; r < n; r++) {
      const start = out.used;
      const { field, message } = columns[r]!;
      writeErrorRow(out, student.c[r]!, width, verdict.code, field, message, student.r?.[r], noCheck, d);
      errorsOut?.append(out, start);
    }
  }
  let parts: [number, number, number] | undefined;
  if (all) {
    const csvBytes = out.used;
    out.append(ndjsonOut);
    const ndjsonBytes = out.used - csvBytes;
    out.append(errorsOut!);
    parts = [csvBytes, ndjsonBytes, out.used - csvBytes - ndjsonBytes];
  }
  // Bytes: a view on a buffer of its own (allocUnsafeSlow or the recycled one, never the shared pool), transferable.
  const output = bytes || all ? { text: '', bytes: out.bytes() } : { text: out.toString() };
  const outcome: ChunkOutcome = {
    ...output,
    rows,
    errorRows,
    students: reader.count,
    stats: counter.stats,
  };
  if (parts !== undefined) outcome.parts = parts;
  if (checks !== undefined) outcome.checks = checks;
  return outcome;
}

export interface ProcessOptions {
  /** Return the output as UTF-8 `bytes` (with `text: ''`) instead of a string. */
  bytes?: boolean;
  /** With `bytes`: a buffer to write into (recycled by the pool runner); a larger one is allocated if needed. */
  buffer?: ArrayBuffer;
}

/**
 * Processes one chunk payload (its string, or its UTF-8 bytes: a pool thread reads them where the pipeline wrote
 * them): output lines (CSV or NDJSON, per the payload) and counts. Pure. Reads the payload student by student
 * (payload-reader.ts), so the heap it needs is that of one student, whatever the size of the chunk.
 */
export function processChunkPayload(payload: string | Uint8Array, options: ProcessOptions = {}): ChunkOutcome {
  const reader = openPayload(payload);
  const hint = reader.size * OUTPUT_BYTES_PER_PAYLOAD_BYTE;
  return run(reader, undefined, options.bytes === true, options.buffer, hint);
}

/**
 * The output of a chunk that could not be run at all (runner rejected, queue gave up): every row of every
 * student becomes an error row with code `internal_error` and `message`, so no row is ever lost. `message` is
 * shown to the client: keep it free of internals.
 */
export function failedChunkOutcome(payload: string, message: string): ChunkOutcome {
  return run(openPayload(payload), message, false);
}
