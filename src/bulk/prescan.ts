/**
 * The check a bulk file gets while it is uploaded (or, in the CLI, before it is computed): push its bytes as they
 * arrive, `end()` once, and read the result. It finds, in one pass and without keeping the file:
 *
 *  - file-level problems, the first one only, with the line (and, when known, the student) it is on:
 *      400 bytes that are not UTF-8 (strict decoding: never a U+FFFD guess that merges two students) or not
 *          valid in the declared charset (src/bulk/text-decoding.ts), an empty file, a malformed or invalid
 *          header row;
 *      413 more bytes than `maxBytes` or more data rows than `maxRows`;
 *  - the students whose rows are not contiguous (an id that comes back after other students), each with the line
 *    where it first appeared. A few are single-student problems: the pipeline makes every row of such a student an
 *    error row (RunBulkOptions.nonContiguous), its first group included. When most students are (a file sorted by
 *    term), the file is refused with a 400 that says to sort it by student (student-runs.ts says why and where).
 *
 * It reads records with the pipeline's own CsvRecordReader, so its line numbers and row count are the pipeline's.
 * Memory: the exact StudentIdSet (about 20-50 bytes per student, off the JS heap) plus the ids found
 * non-contiguous.
 */
import { createBulkDecoder, createBulkReader } from './bulk-reader.ts';
import { AppError, appError } from '../errors.ts';
import { type CsvRecordReader } from './csv-reader.ts';
import { lenientSplit, recordCell, recordCells, type CsvRecord } from './csv-record.ts';
import { CSV_CHARSETS, DEFAULT_DIALECT, isDefaultDialect, type CsvDialect } from './csv-dialect.ts';
import { shapeRecord } from './record-shape.ts';
import { firstInvalidChar, type BulkTextDecoder } from './text-decoding.ts';
import { readHeader, type CsvLayout } from './csv-layout.ts';
import { StudentRuns } from './student-runs.ts';

export interface PrescanLimits {
  maxBytes?: number;
  maxRows?: number;
  /** The pipeline's reader limits (BULK_MAX_ROW_CHARS, BULK_MAX_CELL_CHARS): the prescan reads as it does. */
  maxRowChars?: number;
  maxCellChars?: number;
  /** How the file is written (charset, delimiter, extra columns); default UTF-8, commas, strict. */
  dialect?: CsvDialect;
}

export interface PrescanResult {
  /** The header, once read without problem. */
  layout: CsvLayout | undefined;
  /** Data rows (records after the header), as the pipeline counts them. */
  rows: number;
  bytes: number;
  /** Students as the pipeline counts them: runs of contiguous rows with one student_id (student-runs.ts). */
  students: number;
  /** The first file-level problem (an AppError 400 or 413 naming its line, or the file is sorted by term), if any. */
  problem: AppError | undefined;
  /** The problem is that the file is sorted by term (`sor bulk --sort` sorts such a file instead). */
  termSorted: boolean;
  /** student_id → line where it first appeared, for every student whose rows are not contiguous. */
  nonContiguous: ReadonlyMap<string, number>;
}

/** Bytes kept of the current line's start: enough for its student_id. */
const LINE_HEAD_BYTES = 4096;

function shortId(id: string): string {
  return JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id);
}

/**
 * Offset in `bytes` of the first byte that does not start or continue a valid UTF-8 sequence (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF); -1 when all is valid. A sequence cut by the end is invalid
 * only when `final`.
 */
export function firstInvalidUtf8(bytes: Uint8Array, final: boolean): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return final ? i : -1;
      const c = bytes[i + k]!;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** Longest part of a line held back from the reader (see Prescan.pending). */
const PENDING_MAX_CHARS = 128 * 1024;

export class Prescan {
  private readonly limits: PrescanLimits;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly dialect: CsvDialect;
  /** The decoder of a file declared in another charset than UTF-8 (undefined for UTF-8). */
  private readonly textDecoder: BulkTextDecoder | undefined;
  private readonly reader: CsvRecordReader;
  private readonly records: CsvRecord[] = [];
  /** The order of the students: counts, the non-contiguous ones, a file sorted by term. */
  private readonly runs = new StudentRuns();
  private termSorted = false;
  private layout: CsvLayout | undefined;
  private problem: AppError | undefined;
  private rows = 0;
  private bytes = 0;
  /** The file's first byte (a UTF-16 byte order mark starts with 0xff or 0xfe, which UTF-8 never has). */
  private firstByte: number | undefined;
  /** Line feeds in the bytes before the current chunk (for the line of an encoding error). */
  private lineFeeds = 0;
  /** Bytes of an incomplete UTF-8 sequence carried to the next chunk (for locating an encoding error). */
  private carry: Uint8Array = new Uint8Array(0);
  /** The first bytes of the current physical line (to name the student of a line with an encoding error). */
  private lineHead: Uint8Array = new Uint8Array(0);
  private ended = false;
  /**
   * Decoded text of the current physical line, not yet given to the reader: the reader is fed whole lines only,
   * so that an encoding error can flush it (the reader holds a record back until it has seen enough of what
   * follows) without counting the bad line's own beginning as a record, whatever the chunking. A line longer
   * than PENDING_MAX_CHARS is fed as it comes (memory stays bounded; the reader cuts such a line anyway).
   */
  private pending = '';

  constructor(limits: PrescanLimits = {}) {
    this.limits = limits;
    // The pipeline's own reader: the same records, whatever the chunking.
    this.dialect = limits.dialect ?? DEFAULT_DIALECT;
    this.reader = createBulkReader(limits, this.dialect);
    this.textDecoder = this.dialect.charset === 'utf-8' ? undefined : createBulkDecoder(this.dialect);
  }

  /** The first file-level problem so far (the caller may stop storing the upload once there is one). */
  get failed(): AppError | undefined {
    return this.problem;
  }

  /** Feeds the next bytes of the file. Once a problem is found the rest is only counted. */
  push(chunk: Uint8Array): void {
    if (this.ended) throw new Error('Prescan: push() after end()');
    this.bytes += chunk.length;
    this.firstByte ??= chunk[0];
    const { maxBytes } = this.limits;
    if (this.problem === undefined && maxBytes !== undefined && this.bytes > maxBytes) {
      this.problem = appError('CSV_TOO_LARGE', { limit: maxBytes });
    }
    if (this.problem !== undefined) return;
    if (this.textDecoder !== undefined) {
      this.pushDecoded(this.textDecoder.write(chunk));
      return;
    }
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      this.encodingProblem(chunk, false);
      return;
    }
    this.track(chunk);
    this.feed(text);
  }

  /** Gives the reader every whole line of `pending + text`, and keeps the rest pending. */
  private feed(text: string): void {
    const all = this.pending + text;
    const lf = all.lastIndexOf('\n');
    if (lf === -1 && all.length <= PENDING_MAX_CHARS) {
      this.pending = all;
      return;
    }
    const cut = lf === -1 ? all.length : lf + 1;
    this.pending = all.slice(cut);
    this.read(all.slice(0, cut), false);
  }

  /** Ends the file and returns the result. */
  end(): PrescanResult {
    if (!this.ended) {
      this.ended = true;
      if (this.problem === undefined) {
        let text = '';
        if (this.textDecoder !== undefined) {
          this.pushDecoded(this.textDecoder.end());
        } else {
          try {
            text = this.decoder.decode();
          } catch {
            this.encodingProblem(new Uint8Array(0), true);
          }
        }
        if (this.problem === undefined) {
          const rest = this.pending + text;
          this.pending = '';
          this.read(rest, true);
        }
      }
      if (this.problem === undefined && this.layout === undefined) {
        this.problem = appError('CSV_EMPTY');
      }
      const sorted = this.runs.end();
      if (this.problem === undefined && sorted !== undefined) {
        this.problem = sorted;
        this.termSorted = true;
      }
    }
    return {
      layout: this.problem === undefined ? this.layout : undefined,
      rows: this.rows,
      bytes: this.bytes,
      students: this.runs.students,
      problem: this.problem,
      termSorted: this.termSorted,
      nonContiguous: this.runs.nonContiguous,
    };
  }

  /** Counts the line feeds of a decoded chunk; keeps the start of the current line and the unfinished UTF-8 tail. */
  private track(chunk: Uint8Array): void {
    let last = -1;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      this.lineFeeds++;
      last = i;
    }
    this.lineHead =
      last >= 0
        ? chunk.slice(last + 1, last + 1 + LINE_HEAD_BYTES)
        : this.lineHead.length >= LINE_HEAD_BYTES
          ? this.lineHead
          : concat(this.lineHead, chunk.subarray(0, LINE_HEAD_BYTES - this.lineHead.length)).slice();
    const all = concat(this.carry, chunk);
    let start = all.length;
    for (let k = 1; k <= Math.min(3, all.length); k++) {
      const b = all[all.length - k]!;
      if (b < 0x80) break;
      if (b >= 0xc0) {
        const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
        if (k < length) start = all.length - k;
        break;
      }
    }
    this.carry = all.slice(start);
  }

  /**
   * The chunk holds a byte that is not UTF-8: reads the lines before it (so the header is known whatever the
   * chunking), then records the problem with the line number and the line's student_id read as Latin-1.
   */
  private encodingProblem(chunk: Uint8Array, final: boolean): void {
    const head = this.lineHead;
    const combined = concat(head, chunk);
    let at = firstInvalidUtf8(combined, final);
    if (at === -1) at = combined.length; // the fatal decoder disagrees: blame the end of this chunk
    const atInChunk = at - head.length;
    let lineBytes = combined.subarray(0, Math.max(at, 0));
    let lineEnd: Uint8Array = combined.subarray(at);
    if (atInChunk > 0) {
      const lastLf = chunk.lastIndexOf(10, atInChunk - 1);
      if (lastLf >= 0) {
        const before = chunk.subarray(0, lastLf + 1);
        this.feed(new TextDecoder('utf-8').decode(concat(this.carry, before)));
        for (let i = before.indexOf(10); i !== -1; i = before.indexOf(10, i + 1)) this.lineFeeds++;
        lineBytes = chunk.subarray(lastLf + 1, atInChunk);
      }
      lineEnd = chunk.subarray(atInChunk);
    }
    // The file is refused: flush the whole lines before the bad one (the header included, whatever the chunking).
    if (this.problem === undefined) this.read('', true);
    if (this.problem !== undefined) return; // the lines before it had a problem of their own
    const nl = lineEnd.indexOf(10);
    const line = concat(lineBytes, nl === -1 ? lineEnd : lineEnd.subarray(0, nl));
    const bad = combined[at];
    if (this.lineFeeds === 0 && (this.firstByte === 0xff || this.firstByte === 0xfe)) {
      this.problem = appError('CSV_LOOKS_UTF16');
      return;
    }
    this.problem = appError('CSV_NOT_UTF8', {
      line: this.lineFeeds + 1,
      student: this.studentOf(line),
      byte: bad === undefined ? 'an unfinished character at the end' : `0x${bad.toString(16).padStart(2, '0')}`,
    });
  }

  /** `, student_id "…"` of a data line read as Latin-1, when the header is known. */
  private studentOf(line: Uint8Array): string {
    if (this.layout === undefined) return '';
    const text = Buffer.from(line).toString('latin1').replace(/\r$/, '');
    const id = isDefaultDialect(this.dialect)
      ? recordCell({ line: 0, cells: [], raw: text }, this.layout.col.student_id)
      : this.idOfLine(text);
    return id === '' ? '' : ` (student_id ${shortId(id)} when read as Latin-1)`;
  }

  /** The student_id cell of one line of text, split as the file's dialect says. */
  private idOfLine(text: string): string {
    const layout = this.layout!;
    const cells = shapeRecord({ line: 0, cells: lenientSplit(text, this.dialect.delimiter) }, layout).cells;
    return cells[layout.col.student_id] ?? '';
  }

  /**
   * Text of a file declared in another charset (decoded by iconv-lite): fed as it comes, until a character that
   * stands for invalid bytes; then the lines before it are read (so the header is known) and the problem names
   * its line and student.
   */
  private pushDecoded(text: string): void {
    const bad = firstInvalidChar(text, this.dialect.charset);
    if (bad === -1) {
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineFeeds++;
      this.feed(text);
      return;
    }
    const whole = bad === 0 ? 0 : text.lastIndexOf('\n', bad - 1) + 1;
    const before = text.slice(0, whole);
    for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) this.lineFeeds++;
    if (before !== '') this.feed(before);
    const nl = text.indexOf('\n', bad);
    const line = (this.pending + text.slice(whole, nl === -1 ? text.length : nl)).replace(/\r$/, '');
    this.pending = '';
    this.read('', true);
    if (this.problem !== undefined) return; // the lines before it had a problem of their own
    const id = this.layout === undefined ? '' : this.idOfLine(line);
    this.problem = appError('CSV_NOT_IN_CHARSET', {
      charset: this.dialect.charset,
      line: this.lineFeeds + 1,
      student: id === '' ? '' : ` (student_id ${shortId(id)})`,
      supported: CSV_CHARSETS.join(', '),
    });
  }

  private read(text: string, final: boolean): void {
    const { reader, records } = this;
    reader.push(text, records);
    if (final) reader.end(records);
    for (const record of records) {
      if (this.problem !== undefined) break;
      this.record(record);
    }
    records.length = 0;
  }

  private record(record: CsvRecord): void {
    if (this.layout === undefined) {
      if (record.error !== undefined) {
        this.problem = appError('CSV_HEADER_MALFORMED_AT', { line: record.line, detail: record.error });
        return;
      }
      try {
        this.layout = readHeader(recordCells(record), {
          extraColumns: this.dialect.extraColumns,
          delimiter: this.dialect.delimiter,
        });
      } catch (err) {
        this.problem = err instanceof AppError ? err : AppError.internal(err);
        return;
      }
      this.reader.expectedCells = this.layout.fileWidth ?? this.layout.width;
      return;
    }
    this.rows++;
    const id = recordCell(shapeRecord(record, this.layout), this.layout.col.student_id);
    const { maxRows } = this.limits;
    if (maxRows !== undefined && this.rows > maxRows) {
      this.problem = appError('CSV_TOO_MANY_ROWS_AT', {
        maxRows,
        line: record.line,
        studentId: shortId(id),
        row: this.rows,
      });
      return;
    }
    this.runs.add(id, record.line);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Prescans a whole stream of bytes (the CLI's file inputs). */
export async function prescanStream(input: AsyncIterable<Uint8Array | string>, limits?: PrescanLimits) {
  const scan = new Prescan(limits);
  for await (const chunk of input) {
    scan.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (scan.failed !== undefined) break;
  }
  return scan.end();
}
