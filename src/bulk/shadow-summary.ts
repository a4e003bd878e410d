/**
 * The shadow check's summary (`check_summary` of GET /v1/jobs/{id}, the CLI's table): students counted by status
 * and, for mismatches, by reason. It is read on the pipeline's thread from the output itself, chunk by chunk, as
 * the chunks are written, so it is the same whichever runner (inline, pool, queue) computed them and needs nothing
 * beyond the output bytes to travel.
 *
 * CSV: a student's rows are contiguous and repeat its check cells, so a student is counted on the first of its
 * rows (a row whose student_id cell differs from the previous row's); the three check cells are the last three
 * of each row (`check_reason` and `check_status` are plain tokens, `check_detail` may be quoted). Error rows have
 * empty check cells and are not counted. NDJSON: one student per line, ending in `"check":{…}` (or `null`).
 */
import { CHECK_REASONS, type CheckReason } from '../domain/readings.ts';
import type { BulkFormat } from './chunk-payload.ts';
import type { CsvLayout } from './csv-layout.ts';
import type { ChunkOutcome } from './runner.ts';

export interface CheckSummary {
  /** Students compared: match + mismatch. */
  checked: number;
  match: number;
  mismatch: number;
  /** Calculated students whose sis_* figure cells are all empty. Students with errors are not counted. */
  not_checked: number;
  /** Mismatched students by reason, every reason listed in the table's order. */
  by_reason: Record<CheckReason, number>;
}

export function emptyCheckSummary(): CheckSummary {
  const by_reason = Object.fromEntries(CHECK_REASONS.map((r) => [r, 0])) as Record<CheckReason, number>;
  return { checked: 0, match: 0, mismatch: 0, not_checked: 0, by_reason };
}

const REASONS: ReadonlySet<string> = new Set(CHECK_REASONS);
const QUOTE = 34;
const COMMA = 44;
const LF = 10;

/** Counts students by check status and reason from the output chunks of one file. */
export class CheckTally {
  readonly #format: BulkFormat;
  readonly #idColumn: number;
  readonly #summary = emptyCheckSummary();

  constructor(format: BulkFormat, layout: CsvLayout) {
    this.#format = format;
    this.#idColumn = layout.col.student_id;
  }

  /** A copy of the counts so far. */
  summary(): CheckSummary {
    return { ...this.#summary, by_reason: { ...this.#summary.by_reason } };
  }

  #count(status: string, reason: string): void {
    const s = this.#summary;
    if (status === 'match') s.match++;
    else if (status === 'not_checked') s.not_checked++;
    else if (status === 'mismatch') {
      s.mismatch++;
      s.by_reason[(REASONS.has(reason) ? reason : 'unexplained') as CheckReason]++;
    } else return;
    s.checked = s.match + s.mismatch;
  }

  /** Adds one chunk's output (text or UTF-8 bytes). Call it before the bytes are handed back for reuse. */
  add(out: ChunkOutcome): void {
    const { bytes } = out;
    // latin1 maps each byte to one character: the ASCII structure (quotes, commas, LF) is intact, and two cells
    // are equal exactly when their bytes are.
    const text =
      bytes === undefined ? out.text : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    if (this.#format === 'ndjson') this.#addNdjson(text);
    else this.#addCsv(text);
  }

  #addNdjson(text: string): void {
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      const at = text.lastIndexOf('"check":', end);
      if (at >= start) {
        const status = /^"check":\{"status":"([a-z_]+)"/.exec(text.slice(at, at + 40));
        if (status !== null) {
          const r = text.lastIndexOf('"reason":', end);
          const reason = /^"reason":"([a-z_]+)"/.exec(text.slice(r, r + 50));
          this.#count(status[1]!, reason === null ? '' : reason[1]!);
        }
      }
      start = end + 1;
    }
  }

  #addCsv(text: string): void {
    let previousId: string | undefined;
    let pos = 0;
    let nextQuote = text.indexOf('"');
    while (pos < text.length) {
      // The record's end: the next LF outside quotes.
      let end = text.indexOf('\n', pos);
      if (end === -1) end = text.length;
      if (nextQuote !== -1 && nextQuote < pos) nextQuote = text.indexOf('"', pos);
      if (nextQuote !== -1 && nextQuote < end) end = quotedRecordEnd(text, pos);
      const { status, reason } = checkCells(text, pos, end);
      if (status === '') {
        previousId = undefined; // an error row
      } else {
        const id = cellAt(text, pos, end, this.#idColumn);
        if (id !== previousId) this.#count(status, reason);
        previousId = id;
      }
      pos = end + 1;
    }
  }
}

/** The end (index of the LF, or the text's length) of the record starting at `pos`, honouring quotes. */
function quotedRecordEnd(text: string, pos: number): number {
  let quoted = false;
  for (let i = pos; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE)
      quoted = !quoted; // a doubled quote toggles twice
    else if (c === LF && !quoted) return i;
  }
  return text.length;
}

/** check_status and check_reason: the third-last and last cells of the record [start, end). */
function checkCells(text: string, start: number, end: number): { status: string; reason: string } {
  let stop = end;
  if (stop > start && text.charCodeAt(stop - 1) === 13) stop--; // CR of CRLF (never written; tolerated)
  const reasonComma = text.lastIndexOf(',', stop - 1);
  if (reasonComma < start) return { status: '', reason: '' };
  const reason = text.slice(reasonComma + 1, stop);
  // check_detail: a plain cell, or a quoted one whose inner quotes are doubled.
  let detailStart: number;
  if (text.charCodeAt(reasonComma - 1) === QUOTE) {
    let i = reasonComma - 2;
    while (i >= start) {
      if (text.charCodeAt(i) === QUOTE) {
        if (i - 1 >= start && text.charCodeAt(i - 1) === QUOTE) i -= 2;
        else break;
      } else i--;
    }
    detailStart = i;
  } else {
    detailStart = text.lastIndexOf(',', reasonComma - 1) + 1;
  }
  const statusComma = detailStart - 1;
  if (statusComma <= start || text.charCodeAt(statusComma) !== COMMA) return { status: '', reason: '' };
  const statusStart = text.lastIndexOf(',', statusComma - 1) + 1;
  return { status: text.slice(Math.max(statusStart, start), statusComma), reason };
}

/** The raw text of cell `index` of the record [start, end) (quotes kept: only compared with its neighbours). */
function cellAt(text: string, start: number, end: number, index: number): string {
  let pos = start;
  for (let c = 0; ; c++) {
    let cellEnd: number;
    if (text.charCodeAt(pos) === QUOTE) {
      let i = pos + 1;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q === -1 || q >= end) {
          i = end;
          break;
        }
        if (text.charCodeAt(q + 1) === QUOTE) i = q + 2;
        else {
          i = q + 1;
          break;
        }
      }
      cellEnd = i;
    } else {
      cellEnd = text.indexOf(',', pos);
      if (cellEnd === -1 || cellEnd > end) cellEnd = end;
    }
    if (c === index || cellEnd >= end) return text.slice(pos, cellEnd);
    pos = cellEnd + 1;
  }
}
